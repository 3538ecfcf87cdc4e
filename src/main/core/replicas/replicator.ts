// Keeps a copy of a session on its replica target: after every durable pause (its container, with
// the memory checkpoint when there is one) and every periodic seal (the seal's committed image and
// workspace copy), with the move's own carry: only the image layers the target lacks travel, then
// the writable layer and the workspace as one stream that a cut try continues from. The copy is a
// never-started container on the target; the session's own server is only read.
import { createHash } from 'node:crypto'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { volumeName } from '../engines/docker-names'
import type { ProgressReporter } from '../progress'
import { containerOf } from '../sessions/container-spec'
import { nowIso } from '../store/database'
import type { ReplicaRow, ReplicasRepo } from '../store/replicas-repo'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotRow } from '../store/snapshots-repo'
import { carryContainer } from '../snapshots/carry'
import type { SnapshotService } from '../snapshots/snapshot-service'
import type { Transfer } from '../snapshots/transfer'

/** How long a server may take to answer before it counts as gone (the issue's 3 s). */
export const ANSWER_MS = 3000

/** Whether a server's engine answers within `ms` (a partition never refuses: it only stays silent). */
export async function answers(engine: Engine, ms = ANSWER_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms)))
  const work = (async () => {
    await engine.ready()
    await engine.docker.ping()
    return true
  })().catch(() => false)
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

/** What a replica would copy now: the session's paused container, or its newest seal. */
interface Source {
  kind: 'pause' | 'seal'
  at: string
  /** names the staged parts: a new state gets new ones, a cut try of the same state continues */
  identity: string
  pauseSeq: number | null
  snapshot: SnapshotRow | null
}

export class Replicator {
  private readonly queue = new Map<string, Promise<ReplicaRow | null>>()
  private readonly again = new Set<string>()

  constructor(
    private readonly svc: SnapshotService,
    private readonly transfer: Transfer,
    private readonly repo: ReplicasRepo,
  ) {}

  /** The server a session replicates to, or null (none, or the server it already lives on). */
  targetOf(row: SessionRow): string | null {
    const t = this.repo.target(row.id) ?? this.svc.ctx.settings.get().replicateTo
    if (!t || t === 'none' || t === row.server) return null
    return t
  }

  /** Brings the replica up to date in the background; a request while one runs makes one more run after it. */
  request(sessionId: string): void {
    if (this.queue.has(sessionId)) {
      this.again.add(sessionId)
      return
    }
    void this.sync(sessionId).catch(() => undefined)
  }

  /** Brings the replica up to date now; resolves to the replica (null: nothing to copy or no target). */
  sync(sessionId: string, progress?: ProgressReporter): Promise<ReplicaRow | null> {
    const running = this.queue.get(sessionId)
    if (running) return running.catch(() => undefined).then(() => this.sync(sessionId, progress))
    const p = this.svc.locks.run(sessionId, () => this.replicate(sessionId, progress))
    this.queue.set(sessionId, p)
    void p
      .catch(() => undefined)
      .finally(() => {
        this.queue.delete(sessionId)
        if (this.again.delete(sessionId)) this.request(sessionId)
      })
    return p
  }

  /** Whether the replica holds the session's newest durable state. */
  current(row: SessionRow): boolean {
    const to = this.targetOf(row)
    const rep = to ? this.repo.get(row.id, to) : undefined
    const src = this.sourceOf(row)
    return !src || (!!rep && rep.status === 'current' && Date.parse(rep.at) >= Date.parse(src.at))
  }

  sourceOf(row: SessionRow): Source | null {
    const pause = this.svc.ctx.memory.pause.latestPause(row.id)
    if (row.state === 'paused' && row.durable && pause && pause.status === 'durable' && pause.server === row.server) {
      return { kind: 'pause', at: pause.durableAt ?? row.updatedAt, identity: `pause-${pause.seq}-${row.containerId ?? ''}`, pauseSeq: pause.seq, snapshot: null }
    }
    const seal = this.svc.ctx.repo
      .forSession(row.id)
      .find((s) => s.reason === 'seal' && s.state === 'ready' && s.server === row.server && s.imageRef && s.volumeRef)
    if (seal) return { kind: 'seal', at: seal.createdAt, identity: `seal-${seal.id}`, pauseSeq: null, snapshot: seal }
    return null
  }

  private async replicate(sessionId: string, progress?: ProgressReporter): Promise<ReplicaRow | null> {
    const ctx = this.svc.ctx
    const row = ctx.sessionsRepo.get(sessionId)
    if (!row || row.state === 'finished') return null
    const to = this.targetOf(row)
    if (!to) return null
    const src = this.sourceOf(row)
    if (!src) return this.repo.get(row.id, to) ?? null
    const have = this.repo.get(row.id, to)
    if (have && have.status === 'current' && have.at === src.at && have.generation === this.repo.generation(row.id)) return have
    const key = `rep-${row.id}-${createHash('sha256').update(`${src.identity}\n${to}`).digest('hex').slice(0, 16)}`
    const generation = this.repo.generation(row.id)
    const base: ReplicaRow = have ?? {
      sessionId: row.id,
      server: to,
      containerId: null,
      kind: 'disk',
      checkpoint: null,
      pauseSeq: null,
      at: src.at,
      status: 'syncing',
      generation,
      source: row.server,
      bytes: 0,
      syncedAt: null,
      failure: null,
      stageKey: null,
    }
    try {
      const source = ctx.engines.get(row.server)
      const target = ctx.engines.get(to)
      await Promise.all([source.ready(), target.ready()])
      const root = (await this.transfer.canRoot(row.server)) && (await this.transfer.canRoot(to))
      if (!root) throw new BerthError('refused', `a replica needs the root helper on both ${row.server} and ${to}`)
      // an earlier state's staged parts are of no use any more
      if (have?.stageKey && have.stageKey !== key) {
        await this.transfer.stage.remove(source, have.stageKey)
        await this.transfer.stage.remove(target, have.stageKey)
      }
      // from here the target's old copy is replaced: it does not count until the new one is whole
      this.repo.put({ ...base, status: 'syncing', stageKey: key, failure: null })
      let checkpoint: { container: string; name: string; layout: 'split' | 'docker' } | undefined
      let image: string
      let upperFrom: string | undefined
      let workspace: string
      if (src.kind === 'pause') {
        const info = await source.docker.getContainer(containerOf(row)).inspect()
        image = info.Image
        upperFrom = info.Id
        workspace = volumeName(row.id)
        const cp = ctx.memory.pausedCheckpoint(row)
        if (cp && (await ctx.memory.supported(to)).memory) checkpoint = { container: cp.container, name: cp.name, layout: cp.layout }
      } else {
        image = src.snapshot!.imageRef!
        workspace = src.snapshot!.volumeRef!
      }
      const out = await carryContainer(this.transfer, {
        source,
        target,
        homeId: ctx.homeId,
        key,
        row,
        env: row.env,
        image,
        root,
        upperFrom,
        workspaceFrom: { volume: workspace },
        checkpointFrom: checkpoint,
        progress,
      })
      const done: ReplicaRow = {
        sessionId: row.id,
        server: to,
        containerId: out.containerId,
        kind: checkpoint ? 'memory' : 'disk',
        checkpoint: checkpoint?.name ?? null,
        pauseSeq: src.pauseSeq,
        at: src.at,
        status: 'current',
        generation,
        source: row.server,
        bytes: out.bytes,
        syncedAt: nowIso(),
        failure: null,
        stageKey: null,
      }
      // the session may have failed over or moved meanwhile: then this copy is not its replica
      const now = ctx.sessionsRepo.get(row.id)
      if (!now || now.server !== row.server || this.repo.generation(row.id) !== generation) throw new BerthError('conflict', 'the session moved while its replica was made')
      this.repo.put(done)
      ctx.lifecycle.note(row.id, 'replicated', { to, kind: done.kind, at: done.at, bytes: out.bytes, layersSent: out.layersSent })
      this.changed(row.id)
      return done
    } catch (e) {
      const reason = oneSentence((e as Error).message)
      const cur = this.repo.get(row.id, to)
      this.repo.put({ ...(cur ?? base), failure: reason })
      ctx.lifecycle.note(row.id, 'replica-failed', { to, reason })
      this.changed(row.id)
      throw e
    }
  }

  changed(sessionId: string): void {
    const row = this.svc.ctx.sessionsRepo.get(sessionId)
    if (row) this.svc.ctx.bus.emit('session.changed', this.svc.ctx.sessions.toModel(row))
  }
}
