// Periodic seals: while a session runs, its disk is sealed every few minutes (setting sealMinutes)
// without stopping it, so a server that dies mid-run loses at most that much; `session show`
// reports savedAt, the time of the last durable seal. The same watch notices a session whose
// container the engine stopped behind Berth's back (a crashed or restarted engine) and says so.
import { oneSentence } from '../../../shared/errors'
import { LABEL_HOME, sessionOfContainer } from '../engines/docker-names'
import { nowIso } from '../store/database'
import type { SessionRow } from '../store/sessions-repo'
import { syncServer } from './server-steps'
import type { SnapshotService } from './snapshot-service'

export class Sealer {
  private timer: NodeJS.Timeout | undefined
  private ticking = false
  private stopped = false

  constructor(private readonly svc: SnapshotService) {}

  start(): void {
    this.stopped = false
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Checks often enough that a seal is at most a fifth of its period late (1 s to 30 s). */
  private interval(): number {
    const minutes = this.svc.ctx.settings.get().sealMinutes
    if (minutes <= 0) return 30_000
    return Math.min(30_000, Math.max(1000, (minutes * 60_000) / 5))
  }

  private schedule(): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      void this.tick().finally(() => this.schedule())
    }, this.interval())
    this.timer.unref()
  }

  async tick(): Promise<void> {
    if (this.ticking) return
    this.ticking = true
    try {
      const running = this.svc.ctx.sessionsRepo.inStates(['running'])
      const byServer = new Map<string, SessionRow[]>()
      for (const r of running) byServer.set(r.server, [...(byServer.get(r.server) ?? []), r])
      await Promise.all([...byServer.entries()].map(([server, rows]) => this.tickServer(server, rows)))
    } finally {
      this.ticking = false
    }
  }

  private async tickServer(server: string, rows: SessionRow[]): Promise<void> {
    const ctx = this.svc.ctx
    let live: Map<string, { state: string; status: string }>
    try {
      const engine = ctx.engines.get(server)
      const list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL_HOME}=${ctx.homeId}`] } })
      live = new Map(list.flatMap((c) => {
        const session = sessionOfContainer(c.Labels)
        return session ? [[session, { state: c.State, status: c.Status }] as const] : []
      }))
    } catch {
      return // unreachable: nothing to learn now, and nothing to seal there
    }
    const minutes = ctx.settings.get().sealMinutes
    for (const row of rows) {
      const c = live.get(row.id)
      if (!c || c.state !== 'running') {
        this.lost(row, c)
        continue
      }
      if (minutes <= 0 || this.svc.locks.busy(row.id)) continue
      if (Date.now() - Date.parse(row.savedAt ?? row.createdAt) < minutes * 60_000) continue
      await this.seal(row.id).catch(() => undefined)
    }
  }

  /** A running session whose container is not running: the engine stopped or lost it. */
  private lost(row: SessionRow, c: { state: string; status: string } | undefined): void {
    const fresh = this.svc.ctx.sessionsRepo.get(row.id)
    // only if nothing touched the session since the engine was asked (a resume may have just started it)
    if (!fresh || fresh.state !== 'running' || fresh.version !== row.version || this.svc.locks.busy(row.id)) return
    const saved = fresh.savedAt ? `its last seal (${fresh.savedAt})` : 'its creation (no seal yet)'
    const failure = c
      ? `the engine on ${row.server} stopped this session's container (${c.status}); its files are kept, at worst as of ${saved}; \`berth restart ${row.name}\` starts it again`
      : `the engine on ${row.server} lost this session's container; its disk is kept as of ${saved}; \`berth restart ${row.name}\` brings it back from there`
    try {
      this.svc.ctx.lifecycle.transition(row.id, { from: ['running'], to: 'failed', verb: 'watch', patch: { failure }, kind: 'container-lost' })
    } catch {
      // someone else moved it meanwhile
    }
  }

  /** Seals one session now: a commit of its writable layer and a copy of its workspace, then sync. */
  async seal(sessionId: string): Promise<string | null> {
    return await this.svc.locks.run(sessionId, async () => {
      const row = this.svc.ctx.sessionsRepo.get(sessionId)
      if (!row || row.state !== 'running') return null
      try {
        const snap = await this.svc.capture(row, { reason: 'seal', freeze: false })
        await syncServer(this.svc.ctx.engines.get(row.server), this.svc.ctx.homeId)
        const cur = this.svc.ctx.sessionsRepo.get(sessionId)
        if (cur) {
          this.svc.ctx.sessionsRepo.patch(sessionId, { savedAt: snap.createdAt }, nowIso())
          this.svc.ctx.bus.emit('session.changed', this.svc.ctx.sessions.toModel(this.svc.ctx.sessionsRepo.get(sessionId)!))
        }
        await this.svc.retain(sessionId)
        const now = this.svc.ctx.sessionsRepo.get(sessionId)
        if (now) this.svc.ctx.bus.signal('session.sealed', { session: now, snapshot: snap })
        return snap.id
      } catch (e) {
        this.svc.ctx.lifecycle.note(sessionId, 'seal-failed', { reason: oneSentence((e as Error).message) })
        return null
      }
    })
  }
}
