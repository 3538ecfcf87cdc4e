// Brings sessions that a crash or a dropped connection left mid-way to a consistent state: the
// pause's own job on the server says what happened; when it is gone, the engine says what is true.
// It also writes, when there is time, the memory of sessions a lid-close pause left frozen.
import { randomBytes } from 'node:crypto'
import { BerthError } from '../../../shared/errors'
import { pauseJobResult } from '../engines/server-script/job-protocol'
import { nowIso } from '../store/database'
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'
import { jobFollower, msSince, progressOf, shownName, str, type PauseContext } from './pause-context'
import { DumpProgress } from './dump-progress'
import { containerOf } from '../sessions/container-spec'
import { nextTurn, type Pausing } from './pausing'
import type { Resuming } from './resuming'

/** A frozen session's memory is written once it has been left alone that long (not in the lid-close window). */
export const COMPLETE_AFTER_MS = 30_000
const COMPLETE_DEADLINE_MS = 120_000

export class Reconciling {
  constructor(
    private readonly ctx: PauseContext,
    private readonly pausing: Pausing,
    private readonly resuming: Resuming,
  ) {}

  private mid(row: SessionRow): boolean {
    return row.state === 'pausing' || row.state === 'resuming' || (row.state === 'paused' && !row.durable)
  }

  async reconcile(row: SessionRow, opts: { complete?: boolean } = {}): Promise<void> {
    const { work } = this.ctx
    if (work.has(row.id)) return await work.settled(row.id)
    if (!this.mid(row)) return
    const w = work.begin(row.id, 'reconcile')
    try {
      const d = this.ctx.d
      const pause = d.pauses.latest(row.id)
      const t0 = performance.now()
      const follow = jobFollower(this.ctx, row)
      if (row.state === 'resuming') {
        const job = str(pause?.detail.resumeJob)
        if (!job) return await this.resuming.settleFailed(row.id, 'Berth stopped before the resume started on the server')
        const o = await follow(job, null, () => undefined, { retry: false })
        if (!o.followed) return
        await this.resuming.finish(row.id, pause, o, t0).catch(() => undefined)
        return
      }
      if (!pause) {
        await this.pausing.settleFailed(row.id, this.orphanPause(row), 'Berth has no record of this pause', t0).catch(() => undefined)
        return
      }
      if (pause.status === 'paused' && pause.detail.pending === 'memory') {
        if (opts.complete && !pause.detail.completeFailed && Date.now() - Date.parse(str(pause.detail.pendingSince) ?? nowIso()) >= COMPLETE_AFTER_MS) {
          await this.complete(row, pause).catch((e: Error) => d.lifecycle.note(row.id, 'pause-complete-failed', { snapshot: shownName(pause), reason: e.message }))
        }
        return
      }
      const o = await follow(pause.job, null, () => undefined, { retry: false })
      if (!o.followed) return
      await this.pausing.finish(row.id, pause, o, undefined, t0).catch(() => undefined)
    } finally {
      w.done.resolve(undefined)
      work.end(row.id, w)
    }
  }

  /** Writes the memory of a session a pause left frozen: it becomes a durable memory pause. */
  private async complete(row: SessionRow, pause: PauseRow): Promise<void> {
    const d = this.ctx.d
    const t0 = performance.now()
    const support = await d.checkpoints.support(row.server, { quick: true })
    if (!support.memory) return
    const job = `${row.id}-c${pause.seq}-${randomBytes(3).toString('hex')}`
    d.pauses.update(row.id, pause.seq, { detail: { ...pause.detail, completeJob: job } })
    const args = ['complete', containerOf(row), pause.snapshot, support.method ?? 'docker', `deadline=${COMPLETE_DEADLINE_MS}`, `turn=${nextTurn()}`]
    // the user sees this dump as they see a pause's: its stage, and the bytes written against the expected size
    const progress = progressOf(this.ctx, undefined, row)
    progress.stage('pause', `writing the memory of ${row.name}, frozen on ${row.server}`)
    const dump = new DumpProgress(progress, row.name, { ...pause.detail })
    const o = await jobFollower(this.ctx, row)(job, args, (l) => {
      if (dump.see(l)) return
      if (l.kind === 'metric' && l.name === 'dump' && l.values.length >= 2) d.checkpoints.recordDump(pause.server, l.values[0]!, l.values[1]!)
    }, { limitSeconds: COMPLETE_DEADLINE_MS / 1000 + 30 })
    if (!o.followed) {
      progress.done('pause', `lost the connection to ${row.server} while writing the memory of ${row.name}`)
      throw new BerthError('unreachable', `lost the connection to ${row.server} while writing the memory of ${row.name}`)
    }
    const r = o.rc === 0 ? pauseJobResult(o) : undefined
    if (r && 'value' in r && r.value.mode === 'memory') {
      await this.pausing.finish(row.id, { ...pause, detail: { ...pause.detail, pending: null } }, o, undefined, t0)
      d.lifecycle.note(row.id, 'pause-completed', { snapshot: shownName(pause), ms: msSince(t0) })
      progress.done('pause', `${row.name} is paused (memory, durable)`)
      return
    }
    const reason = (r && 'value' in r ? r.value.fallback : undefined) ?? o.error ?? 'the memory checkpoint did not complete'
    d.pauses.update(row.id, pause.seq, { detail: { ...pause.detail, completeFailed: reason } })
    progress.done('pause', `the memory of ${row.name} stays frozen on ${row.server}: ${reason}`)
    throw new BerthError('checkpoint', `the memory of ${row.name} stays frozen on ${row.server}: ${reason}`)
  }

  /** Reconciles every session of a server that is mid-way (after it became reachable again). */
  async reconcileServer(server: string, opts: { complete?: boolean } = {}): Promise<number> {
    const rows = this.ctx.d.sessionsRepo.inStates(['pausing', 'resuming', 'paused']).filter((r) => r.server === server && this.mid(r) && !this.ctx.work.has(r.id))
    await Promise.all(rows.map((r) => this.reconcile(r, opts).catch(() => undefined)))
    return rows.length
  }

  async reconcileAll(opts: { complete?: boolean } = {}): Promise<number> {
    const servers = new Set(this.ctx.d.sessionsRepo.inStates(['pausing', 'resuming', 'paused']).map((r) => r.server))
    let n = 0
    for (const s of servers) n += await this.reconcileServer(s, opts).catch(() => 0)
    return n
  }

  private orphanPause(row: SessionRow): PauseRow {
    return {
      sessionId: row.id,
      seq: 0,
      snapshot: 'pause-0',
      server: row.server,
      containerId: containerOf(row),
      requested: 'disk',
      mode: null,
      pausedBy: row.pausedBy ?? 'user',
      job: '',
      status: 'running',
      checkpoint: null,
      image: null,
      bytes: 0,
      fallback: null,
      failure: null,
      detail: {},
      createdAt: row.updatedAt,
      durableAt: null,
      resumedAt: null,
      removedAt: null,
    }
  }
}
