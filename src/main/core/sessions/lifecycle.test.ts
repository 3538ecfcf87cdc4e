// The state machine's guarantees, on a real SQLite database.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { BerthError } from '../../../shared/errors'
import { openDatabase, type Db } from '../store/database'
import { EventsRepo } from '../store/events-repo'
import { SessionsRepo, type SessionRow } from '../store/sessions-repo'
import { Lifecycle, NEXT } from './lifecycle'

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'berth-lifecycle-'))
  const db: Db = openDatabase(dir)
  const sessions = new SessionsRepo(db)
  const events = new EventsRepo(db)
  const changed: SessionRow[] = []
  const lifecycle = new Lifecycle(db, sessions, events, (s) => changed.push(s))
  const at = new Date().toISOString()
  sessions.insert({
    id: 's1', name: 'one', server: 'local', state: 'running', mode: null, pausedBy: null, durable: false, image: 'img',
    containerId: 'c1', route: 'calm-otter-42', env: {}, secrets: [], workspace: null, createdAt: at, updatedAt: at,
    finishedAt: null, savedAt: null, failure: null, autoPause: true, idleAfterSeconds: null, options: {}, version: 0,
  })
  return { dir, db, sessions, events, lifecycle, changed }
}

describe('the session lifecycle', () => {
  let f: ReturnType<typeof fixture>
  afterEach(() => {
    f.db.close()
    rmSync(f.dir, { recursive: true, force: true })
  })

  it('records every transition in the events log with its from and to states', () => {
    f = fixture()
    f.lifecycle.transition('s1', { from: ['running'], to: 'pausing', verb: 'pause', detail: { mode: 'memory' } })
    f.lifecycle.transition('s1', { from: ['pausing'], to: 'paused', verb: 'pause', patch: { mode: 'memory', durable: true } })
    const log = f.events.forSession('s1')
    expect(log.map((e) => [e.from, e.to])).toEqual([['running', 'pausing'], ['pausing', 'paused']])
    expect(log[0]!.detail).toMatchObject({ verb: 'pause', mode: 'memory' })
    expect(f.sessions.get('s1')).toMatchObject({ state: 'paused', mode: 'memory', durable: true, version: 2 })
    expect(f.changed.map((s) => s.state)).toEqual(['pausing', 'paused'])
  })

  it('lets only one of two callers start a transition from the same state', () => {
    f = fixture()
    f.lifecycle.transition('s1', { from: ['running'], to: 'pausing', verb: 'pause' })
    expect(() => f.lifecycle.transition('s1', { from: ['running'], to: 'finishing', verb: 'finish' })).toThrow(/cannot finish session one: it is pausing/)
    expect(f.events.forSession('s1')).toHaveLength(1)
  })

  it('refuses a stale version even when the state matches (compare-and-set)', () => {
    f = fixture()
    const v = f.sessions.get('s1')!.version
    f.sessions.compareAndSet('s1', ['running'], 'pausing', {}, new Date().toISOString(), v)
    expect(f.sessions.compareAndSet('s1', ['pausing'], 'paused', {}, new Date().toISOString(), v)).toBe(0)
  })

  it('never allows a transition the machine does not define, and says a finished session finished', () => {
    f = fixture()
    expect(() => f.lifecycle.transition('s1', { from: ['running'], to: 'resuming', verb: 'resume' })).toThrow(BerthError)
    f.lifecycle.transition('s1', { from: ['running'], to: 'finishing', verb: 'finish' })
    f.lifecycle.transition('s1', { from: ['finishing'], to: 'finished', verb: 'finish' })
    expect(NEXT.finished).toEqual([])
    try {
      f.lifecycle.transition('s1', { from: ['running', 'paused'], to: 'pausing', verb: 'pause' })
      expect.unreachable()
    } catch (e) {
      expect((e as BerthError).code).toBe('refused')
      expect((e as BerthError).message).toBe('cannot pause session one: the session finished')
    }
  })
})
