// What the parts of pause and resume share: their collaborators, the server job they follow, and
// the small helpers every part uses.
import type { PauseMode } from '../../../shared/models'
import type { CoreBus } from '../bus'
import type { Checkpoints } from '../checkpoints/checkpoints'
import type { JobLine, JobOutcome } from '../engines/server-script/job-protocol'
import type { EngineRegistry } from '../engines/engine-registry'
import { progressOn, type ProgressReporter } from '../progress'
import type { Lifecycle } from '../sessions/lifecycle'
import type { SessionService } from '../sessions/session-service'
import type { MeterRepo } from '../store/meter-repo'
import type { PauseRow, PausesRepo } from '../store/pauses-repo'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { StreamHub } from '../streams/stream-hub'
import { followJob } from './job-follower'
import type { SessionWork } from './session-work'

export interface PauseServiceDeps {
  sessionsRepo: SessionsRepo
  sessions: SessionService
  lifecycle: Lifecycle
  engines: EngineRegistry
  hub: StreamHub
  bus: CoreBus
  pauses: PausesRepo
  checkpoints: Checkpoints
  meter: MeterRepo
  /** the deadline of `pause --all` and the sleep policy when the caller gives none */
  lidCloseDeadlineMs: () => Promise<number>
  /** the deadline of a pause of one session when the caller gives none (the pauseDeadlineSeconds setting, else 120 s) */
  pauseDeadlineMs: () => number
  /** how many memory dumps a server writes at once (the dumpsAtOnce setting, else the planner's default) */
  dumpsAtOnce: () => number
  /** whether a memory resume tries CRIU's lazy pages, and how long all memory may take to come back */
  lazyResume: () => { on: boolean; deadlineSeconds: number }
}

/** The state of the pause and resume machinery shared by its parts. */
export interface PauseContext {
  d: PauseServiceDeps
  /**
   * The name a pause's checkpoint is listed under (the snapshots feature's `NAME.pause:vN`),
   * reserved when the pause starts so that its events, its answer, the list and the CLI say the
   * same name; without it, the pause's own name (pause-N).
   */
  listedName?: (row: SessionRow) => string
  work: SessionWork
  /** how long a pause or resume keeps trying to reach its server again after the connection dropped */
  reconnectMs: number
  closing: boolean
}

export const msSince = (t0: number) => Math.round(performance.now() - t0)

/** The name a user reads for a pause's checkpoint: the listed snapshot's, else the pause's own. */
export const shownName = (pause: Pick<PauseRow, 'snapshot' | 'detail'>): string => {
  const listed = pause.detail.listed
  return typeof listed === 'string' && listed ? listed : pause.snapshot
}
export const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null)
export const isPauseMode = (v: unknown): v is PauseMode => v === 'memory' || v === 'frozen' || v === 'disk'

export function jobFollower(ctx: PauseContext, row: SessionRow) {
  return (job: string, launch: string[] | null, onLine: (l: JobLine) => void, opts: { retry?: boolean; limitSeconds?: number } = {}): Promise<JobOutcome> => {
    const deps = {
      checkpoints: ctx.d.checkpoints,
      note: (kind: string, detail: Record<string, unknown>) => ctx.d.lifecycle.note(row.id, kind, detail),
      reconnectMs: ctx.reconnectMs,
      closing: () => ctx.closing,
    }
    return followJob(deps, row.server, job, launch, onLine, opts.retry ?? true, opts.limitSeconds)
  }
}

export function progressOf(ctx: PauseContext, op: string | undefined, row: SessionRow): ProgressReporter {
  return progressOn(ctx.d.bus, op, row.id, row.server)
}
