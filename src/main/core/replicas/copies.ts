// The copies a fail-over left behind, and what `replica ls` shows of each copy. A stale copy is a
// container of an older generation on a server the session no longer lives on: when that server
// answers again the copy is stopped if its engine started it, and it stays until `replica clean`.
import type { ReplicaInfo } from '../../../shared/contract/replicas'
import type { ReplicaState } from '../../../shared/models'
import { oneSentence } from '../../../shared/errors'
import { volumeName } from '../engines/docker-names'
import type { ReplicaRow, ReplicasRepo } from '../store/replicas-repo'
import type { SessionRow } from '../store/sessions-repo'
import { removeContainer, removeVolume } from '../snapshots/server-steps'
import type { SnapshotService } from '../snapshots/snapshot-service'
import { answers, type Replicator } from './replicator'

export class Copies {
  constructor(
    private readonly svc: SnapshotService,
    private readonly repo: ReplicasRepo,
    private readonly replicator: Replicator,
  ) {}

  behind(rep: ReplicaRow, row: SessionRow): number {
    const src = this.replicator.sourceOf(row)
    if (!src) return 0
    return Math.max(0, Math.round((Date.parse(src.at) - Date.parse(rep.at)) / 1000))
  }

  info(rep: ReplicaRow): ReplicaInfo {
    const row = this.svc.ctx.sessionsRepo.get(rep.sessionId)
    return {
      sessionId: rep.sessionId,
      name: row?.name ?? rep.sessionId,
      server: rep.server,
      containerId: rep.containerId,
      kind: rep.kind,
      at: rep.at,
      status: rep.status,
      generation: rep.generation,
      sessionGeneration: this.repo.generation(rep.sessionId),
      source: rep.source,
      bytes: rep.bytes,
      syncedAt: rep.syncedAt,
      failure: rep.failure,
      behindSeconds: row && rep.status !== 'stale' ? this.behind(rep, row) : 0,
    }
  }

  /** The session's replica as `session show` has it (null: no target, or no copy yet). */
  state(row: SessionRow): ReplicaState | null {
    const to = this.replicator.targetOf(row)
    const rep = to ? this.repo.get(row.id, to) : undefined
    if (!rep || rep.status === 'stale') return null
    const failure = rep.status === 'syncing' ? (rep.failure ?? 'being brought up to date: not usable until it is whole') : rep.failure
    return { server: rep.server, at: rep.at, kind: rep.kind, behindSeconds: this.behind(rep, row), failure }
  }

  /** A stale copy whose server answers is kept stopped: a restarted engine must not run a second copy. */
  async keepStopped(): Promise<void> {
    for (const rep of this.repo.list().filter((r) => r.status === 'stale' && r.containerId)) {
      const engine = this.svc.ctx.engines.peek(rep.server) ?? this.svc.ctx.engines.get(rep.server)
      if (!(await answers(engine))) continue
      try {
        const c = await engine.docker.getContainer(rep.containerId!).inspect()
        if (c.State.Running || c.State.Paused) {
          await engine.docker.getContainer(rep.containerId!).kill().catch(() => undefined)
          this.svc.ctx.lifecycle.note(rep.sessionId, 'stale-copy-stopped', { server: rep.server, generation: rep.generation })
        }
      } catch {
        // gone already: clean-up will find nothing to remove
      }
    }
  }

  /** Removes stale copies on servers that answer; the others stay listed. */
  async clean(sessionId?: string): Promise<{ removed: ReplicaInfo[]; kept: Array<{ replica: ReplicaInfo; reason: string }> }> {
    const removed: ReplicaInfo[] = []
    const kept: Array<{ replica: ReplicaInfo; reason: string }> = []
    for (const rep of this.repo.list(sessionId).filter((r) => r.status === 'stale')) {
      const info = this.info(rep)
      const engine = this.svc.ctx.engines.get(rep.server)
      if (!(await answers(engine))) {
        kept.push({ replica: info, reason: `${rep.server} does not answer` })
        continue
      }
      try {
        const row = this.svc.ctx.sessionsRepo.get(rep.sessionId)
        if (rep.containerId) await removeContainer(engine, rep.containerId)
        // the volume is the session's name there: only when the session does not live there again
        if (!row || row.server !== rep.server) await removeVolume(engine, volumeName(rep.sessionId))
        this.repo.remove(rep.sessionId, rep.server)
        removed.push(info)
      } catch (e) {
        kept.push({ replica: info, reason: oneSentence((e as Error).message) })
      }
    }
    return { removed, kept }
  }

  /** A finished session's copies go (best effort: a server that does not answer keeps its copy until the sweep). */
  async dropAll(sessionId: string): Promise<void> {
    for (const rep of this.repo.list(sessionId)) {
      const row = this.svc.ctx.sessionsRepo.get(sessionId)
      if (row && row.server === rep.server && row.containerId === rep.containerId) continue
      try {
        const engine = this.svc.ctx.engines.get(rep.server)
        if (!(await answers(engine))) continue
        if (rep.containerId) await removeContainer(engine, rep.containerId)
        await removeVolume(engine, volumeName(sessionId))
      } catch {
        // left for the leftover sweep
      }
    }
    this.repo.forget(sessionId)
  }
}
