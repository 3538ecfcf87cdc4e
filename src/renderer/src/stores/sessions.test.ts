import { describe, expect, it } from 'vitest'
import { FakeClient, flush, session } from '../test/fake-client'
import { summaryOf } from '../../../shared/models'
import { createSessionsStore, matches, visibleSessions, DEFAULT_FILTER } from './sessions'

describe('the sessions store', () => {
  it('loads the list and keeps it live from session.changed', async () => {
    const a = session({ name: 'alpha' })
    const b = session({ name: 'beta', state: 'paused', mode: 'memory', durable: true })
    const client = new FakeClient().handle('session.list', () => [a, b])
    const store = createSessionsStore(client)
    await store.getState().load()
    expect(Object.keys(store.getState().byId)).toEqual([a.id, b.id])
    client.emit('session.changed', { ...a, state: 'pausing' })
    expect(store.getState().byId[a.id]!.state).toBe('pausing')
    const c = session({ name: 'gamma', sshLine: 'ssh -p 2222 gamma@127.0.0.1' })
    client.emit('session.changed', c)
    // the list keeps what it shows; the whole session is there for a view
    expect(store.getState().byId[c.id]).toEqual(summaryOf(c))
    expect(store.getState().byId[c.id]).not.toHaveProperty('sshLine')
    expect(store.getState().details[c.id]).toEqual(c)
  })

  it('reads a whole session for its view, and again after the link to the core comes back', async () => {
    let line = 'ssh -p 2222 alpha@127.0.0.1'
    const a = session({ name: 'alpha' })
    const client = new FakeClient().handle('session.list', () => [a]).handle('session.show', () => ({ ...a, sshLine: line }))
    const store = createSessionsStore(client)
    await store.getState().load()
    expect(store.getState().byId[a.id]).not.toHaveProperty('sshLine')
    await store.getState().show(a.id)
    expect(store.getState().details[a.id]!.sshLine).toBe(line)
    line = 'ssh -p 2200 alpha@127.0.0.1'
    client.reconnect()
    await flush()
    expect(store.getState().details[a.id]!.sshLine).toBe(line)
  })

  it('follows the meters of running sessions from each sampling round', async () => {
    const a = session({ name: 'alpha' })
    const client = new FakeClient().handle('session.list', () => [a])
    const store = createSessionsStore(client)
    await store.getState().load()
    const meter = { cpuPercent: 12.5, memoryBytes: 64 << 20, cost: 0.02, ratePerHour: 0.5 }
    client.emit('meter.sampled', { meters: [{ sessionId: a.id, meter }, { sessionId: 'gone', meter }] })
    expect(store.getState().byId[a.id]!.meter).toEqual(meter)
    expect(store.getState().byId.gone).toBeUndefined()
  })

  it('keeps the latest progress of long work and drops it when the work ends', () => {
    const a = session({ state: 'moving' })
    const client = new FakeClient()
    const store = createSessionsStore(client)
    client.emit('session.changed', a)
    const p = { op: 'o', sessionId: a.id, server: 'office', stage: 'layers', bytes: 50, total: 100, rate: 10, done: false, message: 'moving to office' }
    client.emit('progress', p)
    expect(store.getState().progress[a.id]).toEqual(p)
    client.emit('progress', { ...p, sessionId: null })
    expect(store.getState().progress[a.id]).toEqual(p)
    client.emit('session.changed', { ...a, state: 'paused' })
    expect(store.getState().progress[a.id]).toBeUndefined()
    client.emit('progress', p)
    client.emit('progress', { ...p, done: true })
    expect(store.getState().progress[a.id]).toBeUndefined()
  })

  it('filters by state, server and text, newest first', () => {
    const running = session({ name: 'web', server: 'office' })
    const paused = session({ name: 'api', state: 'paused' })
    const finished = session({ name: 'old', state: 'finished' })
    const byId = Object.fromEntries([running, paused, finished].map((s) => [s.id, s]))
    expect(visibleSessions(byId, DEFAULT_FILTER).map((s) => s.name)).toEqual(['web', 'api'])
    expect(visibleSessions(byId, { ...DEFAULT_FILTER, state: 'all' }).map((s) => s.name)).toEqual(['web', 'api', 'old'])
    expect(visibleSessions(byId, { ...DEFAULT_FILTER, state: 'paused' }).map((s) => s.name)).toEqual(['api'])
    expect(visibleSessions(byId, { ...DEFAULT_FILTER, server: 'office' }).map((s) => s.name)).toEqual(['web'])
    expect(matches(running, { ...DEFAULT_FILTER, text: 'WE' })).toBe(true)
    expect(matches(running, { ...DEFAULT_FILTER, text: running.route })).toBe(true)
    expect(matches(running, { ...DEFAULT_FILTER, text: 'nothing' })).toBe(false)
  })

  it('reloads after the link to the core comes back, and reports a failed load', async () => {
    let n = 0
    const client = new FakeClient().handle('session.list', () => {
      n++
      return []
    })
    const store = createSessionsStore(client)
    await store.getState().load()
    client.reconnect()
    await flush()
    expect(n).toBe(2)
    client.fail('session.list', 'internal', 'the database is locked')
    await store.getState().load()
    expect(store.getState().loadError).toMatchObject({ code: 'internal' })
  })
})
