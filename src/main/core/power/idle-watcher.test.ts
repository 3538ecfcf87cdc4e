import { describe, expect, it } from 'vitest'
import { DEFAULT_SETTINGS } from '../../../shared/settings'
import { CoreBus } from '../bus'
import type { SessionRow } from '../store/sessions-repo'
import { silentOwner, StreamHub } from '../streams/stream-hub'
import { IdleWatcher } from './idle-watcher'

function row(id: string, patch: Partial<SessionRow> = {}): SessionRow {
  return {
    id,
    name: id,
    server: 'local',
    state: 'running',
    mode: null,
    pausedBy: null,
    durable: false,
    image: 'img',
    containerId: `c-${id}`,
    route: `r-${id}`,
    env: {},
    secrets: [],
    workspace: null,
    createdAt: '',
    updatedAt: '',
    finishedAt: null,
    savedAt: null,
    failure: null,
    autoPause: true,
    idleAfterSeconds: 5,
    options: {},
    version: 0,
    ...patch,
  }
}

function setup(rows: SessionRow[]) {
  let now = 1_000_000
  const paused: Array<{ id: string; reason: string | undefined }> = []
  const bus = new CoreBus()
  const hub = new StreamHub()
  const w = new IdleWatcher({
    sessions: { inStates: () => rows } as never,
    settings: () => ({ ...DEFAULT_SETTINGS, idleAfterSeconds: 600 }),
    bus,
    hub,
    pause: {
      pause: async (id: string, req?: { reason?: string }) => {
        paused.push({ id, reason: req?.reason })
        return { paused: true as const, mode: 'memory' as const, durable: true, snapshot: 'pause-1', ms: 1 }
      },
      busy: () => false,
    } as never,
    now: () => now,
  })
  return { w, bus, hub, paused, advance: (ms: number) => (now += ms) }
}

describe('idle auto-pause', () => {
  it('pauses a session once its idle time passed with no activity, and says why', async () => {
    const { w, paused, advance } = setup([row('a')])
    await w.check() // first seen: the timer starts
    advance(4000)
    await w.check()
    expect(paused).toEqual([])
    advance(1500)
    await w.check()
    expect(paused.map((p) => p.id)).toEqual(['a'])
    expect(paused[0]!.reason).toMatch(/^no activity for 5 s \(the timer was last reset by Berth started/)
  })

  it('waits while a foreground command runs, and counts activity and typing as resets', async () => {
    const rows = [row('fg'), row('typing'), row('off', { autoPause: false }), row('global', { idleAfterSeconds: null })]
    const { w, bus, hub, paused, advance } = setup(rows)
    w.start()
    try {
      bus.signal('foreground', { sessionId: 'fg', delta: 1 })
      const owner = silentOwner('o')
      const stream = hub.create(owner, { sessionId: 'typing', terminal: true })
      for (let i = 0; i < 10; i++) {
        advance(1000)
        hub.write(owner, stream, Buffer.from('x'), false)
        await w.check()
      }
      expect(paused).toEqual([])
      expect(w.activity(rows[0]!).status).toBe('active: 1 foreground command running through Berth')
      expect(w.activity(rows[1]!).lastSignal).toBe('terminal input')
      expect(w.activity(rows[2]!).status).toBe('active: auto-pause is off for this session')
      expect(w.activity(rows[3]!).idleAfterSeconds).toBe(600)
      bus.signal('foreground', { sessionId: 'fg', delta: -1 })
      advance(5001)
      await w.check()
      expect(paused.map((p) => p.id).sort()).toEqual(['fg', 'typing'])
    } finally {
      w.stop()
    }
  })

  it('describes paused sessions by who paused them', () => {
    const { w } = setup([])
    expect(w.activity(row('u', { state: 'paused', pausedBy: 'user' })).status).toBe('paused by you; it stays paused until you resume it')
    expect(w.activity(row('i', { state: 'paused', pausedBy: 'idle' })).status).toBe('paused by itself after its idle time; it resumes on the next attach')
  })
})
