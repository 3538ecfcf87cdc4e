// Idle auto-pause: a running session pauses itself after its idle time (per session, else the
// global setting) with no terminal input, no ssh-route traffic and no foreground command running
// through Berth. Signals arrive on the core bus ('activity', 'foreground') from exec, terminals and
// the ssh gateway; `session show` reports which one last reset the timer.
import type { Activity } from '../../../shared/models'
import type { Settings } from '../../../shared/settings'
import type { CoreBus } from '../bus'
import type { PauseApi } from '../pause/pause-service'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { StreamHub } from '../streams/stream-hub'

interface Mark {
  at: number
  signal: string
}

export interface IdleWatcherDeps {
  sessions: SessionsRepo
  settings: () => Settings
  bus: CoreBus
  hub: StreamHub
  pause: PauseApi & { busy(id: string): boolean }
  now?: () => number
}

export class IdleWatcher {
  private readonly marks = new Map<string, Mark>()
  private readonly foreground = new Map<string, number>()
  private readonly unsubscribe: Array<() => void> = []
  private timer: NodeJS.Timeout | undefined
  private readonly now: () => number
  checkEveryMs = 1000

  constructor(private readonly d: IdleWatcherDeps) {
    this.now = d.now ?? Date.now
  }

  start(): void {
    this.unsubscribe.push(
      this.d.bus.on('activity', (a) => this.touch(a.sessionId, a.signal)),
      this.d.bus.on('foreground', (f) => {
        const n = Math.max(0, (this.foreground.get(f.sessionId) ?? 0) + f.delta)
        if (n) this.foreground.set(f.sessionId, n)
        else this.foreground.delete(f.sessionId)
        this.touch(f.sessionId, 'command')
      }),
      this.d.hub.onInput((sessionId, terminal) => this.touch(sessionId, terminal ? 'terminal input' : 'input')),
      this.d.bus.onContract((name, payload) => {
        if (name !== 'session.changed') return
        const s = payload as { id: string; state: string }
        // the timer starts when a session starts running (created, resumed, recovered)
        if (s.state === 'running') {
          if (!this.marks.has(s.id)) this.touch(s.id, 'started')
        } else {
          this.marks.delete(s.id)
          this.foreground.delete(s.id)
        }
      }),
    )
    const loop = () => {
      this.timer = setTimeout(() => {
        void this.check().finally(loop)
      }, this.checkEveryMs)
      this.timer.unref()
    }
    loop()
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer)
    for (const u of this.unsubscribe.splice(0)) u()
  }

  touch(sessionId: string, signal: string): void {
    this.marks.set(sessionId, { at: this.now(), signal })
  }

  /** The idle time that applies to a session; 0 when idle auto-pause is off for it. */
  idleAfter(row: SessionRow): number {
    if (!row.autoPause) return 0
    return row.idleAfterSeconds ?? this.d.settings().idleAfterSeconds
  }

  private mark(row: SessionRow): Mark {
    let m = this.marks.get(row.id)
    if (!m) {
      // first seen running since Berth started: count from now
      m = { at: this.now(), signal: 'Berth started' }
      this.marks.set(row.id, m)
    }
    return m
  }

  /** Pauses every running session whose idle time ran out. */
  async check(): Promise<void> {
    const due: Array<{ row: SessionRow; reason: string }> = []
    for (const row of this.d.sessions.inStates(['running'])) {
      const limit = this.idleAfter(row)
      const m = this.mark(row)
      if (!limit || this.foreground.get(row.id) || this.d.pause.busy(row.id)) continue
      const idleMs = this.now() - m.at
      if (idleMs < limit * 1000) continue
      due.push({ row, reason: `no activity for ${limit} s (the timer was last reset by ${m.signal} at ${new Date(m.at).toISOString()})` })
    }
    await Promise.all(
      due.map(async ({ row, reason }) => {
        this.touch(row.id, 'idle pause')
        await this.d.pause.pause(row.id, { by: 'idle', reason }).catch(() => undefined)
      }),
    )
  }

  /** Why a session counts as active or idle, for `session show`. */
  activity(row: SessionRow): Activity {
    const limit = this.idleAfter(row)
    const m = this.marks.get(row.id)
    const base = { idleAfterSeconds: row.autoPause ? limit : null, lastActiveAt: m ? new Date(m.at).toISOString() : null, lastSignal: m?.signal ?? null }
    if (row.state === 'paused' || row.state === 'pausing') {
      const by = row.pausedBy === 'idle' ? 'itself after its idle time' : row.pausedBy === 'policy' ? 'the sleep policy' : 'you'
      const back = row.pausedBy === 'user' ? 'it stays paused until you resume it' : 'it resumes on the next attach'
      return { ...base, status: `paused by ${by}; ${back}` }
    }
    if (row.state !== 'running') return { ...base, status: row.state }
    if (!row.autoPause) return { ...base, status: 'active: auto-pause is off for this session' }
    if (!limit) return { ...base, status: 'active: idle auto-pause is off' }
    const fg = this.foreground.get(row.id) ?? 0
    if (fg) return { ...base, status: `active: ${fg} foreground command${fg > 1 ? 's' : ''} running through Berth` }
    const idle = m ? Math.floor((this.now() - m.at) / 1000) : 0
    return { ...base, status: `${idle < 2 ? 'active' : `idle for ${idle} s`}: pauses after ${limit} s without activity (timer last reset by ${m?.signal ?? 'nothing yet'})` }
  }
}
