import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/settings'
import type { EngineRegistry } from '../engines/engine-registry'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import { RouteTable } from './route-table'

function row(patch: Partial<SessionRow>): SessionRow {
  return {
    id: 's1', name: 'one', server: 'local', state: 'running', mode: null, pausedBy: null, durable: false, image: 'img',
    containerId: 'c1', route: 'calm-otter-42', env: {}, secrets: [], workspace: null, createdAt: '', updatedAt: '',
    finishedAt: null, savedAt: null, failure: null, autoPause: true, idleAfterSeconds: null, options: {}, version: 1,
    ...patch,
  }
}

function table(initial: SessionRow, settings: Partial<Settings> = {}) {
  let current = initial
  const repo = {
    get: (id: string) => (id === current.id ? current : undefined),
    find: (ref: string) => ([current.id, current.route, current.name].includes(ref) ? current : undefined),
  } as unknown as SessionsRepo
  const engines = { get: (name: string) => ({ name }) } as unknown as EngineRegistry
  const t = new RouteTable(repo, engines, () => ({ ...DEFAULT_SETTINGS, ...settings }))
  return { t, set: (p: Partial<SessionRow>) => (current = { ...current, ...p, version: current.version + 1 }) }
}

describe('the route table', () => {
  it('resolves a route id exactly (not a name or an id) to the running container', async () => {
    const { t } = table(row({}))
    expect(t.lookup('calm-otter-42')?.id).toBe('s1')
    expect(t.lookup('one')).toBeUndefined()
    expect(t.lookup('s1')).toBeUndefined()
    const r = await t.reach('s1')
    expect(r.containerId).toBe('c1')
    expect(r.engine.name).toBe('local')
  })

  it('refuses a finished session with "session finished"', async () => {
    const { t } = table(row({ state: 'finished', containerId: null }))
    await expect(t.reach('s1')).rejects.toThrow('session finished')
  })

  it('leaves a session the user paused paused, and says how to resume it', async () => {
    const { t } = table(row({ state: 'paused', pausedBy: 'user', containerId: null }))
    let called = 0
    t.setResumer(async () => (called++, null))
    await expect(t.reach('s1')).rejects.toThrow('was paused by you and stays paused; resume it with: berth resume calm-otter-42')
    expect(called).toBe(0)
  })

  it('resumes an auto-paused session once for many connections, and tells each', async () => {
    const { t, set } = table(row({ state: 'paused', pausedBy: 'idle', containerId: null }))
    let called = 0
    t.setResumer(async () => {
      called++
      await new Promise((r) => setTimeout(r, 50))
      set({ state: 'running', containerId: 'c2', pausedBy: null })
      return { mode: 'memory', ms: 1200 }
    })
    const told: string[][] = [[], [], []]
    const reached = await Promise.all(told.map((lines) => t.reach('s1', (l) => lines.push(l))))
    expect(called).toBe(1)
    expect(reached.map((r) => r.containerId)).toEqual(['c2', 'c2', 'c2'])
    for (const lines of told) {
      expect(lines[0]).toBe('resuming session calm-otter-42 (paused automatically) ...')
      expect(lines[1]).toBe('session calm-otter-42 resumed (memory in 1.2 s)')
    }
  })

  it('resumes a user-paused session when the setting allows it', async () => {
    const { t, set } = table(row({ state: 'paused', pausedBy: 'user', containerId: null }), { resumeUserPausedOnConnect: true })
    t.setResumer(async (_r, byUser) => {
      expect(byUser).toBe(true)
      set({ state: 'running', containerId: 'c3' })
      return { mode: 'disk' }
    })
    expect((await t.reach('s1')).containerId).toBe('c3')
  })

  it('waits out a transition, saying once why it waits', async () => {
    const { t, set } = table(row({ state: 'resuming', containerId: null }))
    setTimeout(() => set({ state: 'running', containerId: 'c4' }), 500)
    const lines: string[] = []
    expect((await t.reach('s1', (l) => lines.push(l))).containerId).toBe('c4')
    expect(lines).toEqual(['session calm-otter-42 is resuming; waiting for it to run'])
  })

  it('stops waiting when the client went away', async () => {
    const { t } = table(row({ state: 'moving', containerId: null }))
    let gone = false
    setTimeout(() => (gone = true), 300)
    await expect(t.reach('s1', () => undefined, () => gone)).rejects.toThrow('the connection closed')
  })
})
