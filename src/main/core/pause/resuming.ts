// One resume of one session: the common case through the Docker API (direct-resume.ts), anything
// unusual through its server job (a restore that must be retried, a cold boot), then the steps
// every start needs, and the honest outcome: the mode it came back in, and why memory did not.
import { randomBytes } from 'node:crypto'
import type { ResumeResult } from '../../../shared/contract'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { PauseMode } from '../../../shared/models'
import { jobResult, ResumeJobResult, type JobOutcome } from '../engines/server-script/job-protocol'
import { inspectContainer } from '../engines/engine'
import { nowIso } from '../store/database'
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'
import type { PauseArtefacts } from './artefacts'
import { resumeDirect } from './direct-resume'
import { LazyResume } from './lazy-resume'
import { jobFollower, msSince, progressOf, shownName, str, type PauseContext } from './pause-context'
import { containerOf } from '../sessions/container-spec'

/** Who asked for a resume: only a person or an attach resumes a session a person paused. */
export type ResumeCause = 'user' | 'attach' | 'wake' | 'connect'

export class Resuming {
  private readonly lazy: LazyResume

  constructor(
    private readonly ctx: PauseContext,
    private readonly artefacts: PauseArtefacts,
  ) {
    this.lazy = new LazyResume(ctx, artefacts)
  }

  async run(row: SessionRow, opts: { cause?: ResumeCause; op?: string | undefined }, t0: number): Promise<ResumeResult> {
    const d = this.ctx.d
    const pause = d.pauses.latest(row.id)
    if (d.sessions.canRecreateLost() && (await this.containerLost(row))) {
      const note = await d.sessions.recreateLost(row.id, opts.op)
      if (pause) {
        d.pauses.update(row.id, pause.seq, { status: 'resumed', resumedAt: nowIso() })
        this.artefacts.removeSoon(pause)
      }
      const r: ResumeResult = { resumed: true, mode: 'disk', ms: msSince(t0), note }
      if (pause?.mode === 'memory' || pause?.mode === 'frozen') r.fallback = 'the container was gone, and its memory with it'
      return r
    }
    const mode: PauseMode = row.mode ?? pause?.mode ?? 'disk'
    const containerId = containerOf(row)
    const checkpoint = pause?.checkpoint ?? pause?.snapshot ?? '-'
    const job = `${row.id}-r${pause?.seq ?? 0}-${randomBytes(3).toString('hex')}`
    if (pause) d.pauses.update(row.id, pause.seq, { detail: { ...pause.detail, resumeJob: job } })
    d.lifecycle.transition(row.id, {
      from: ['paused'],
      to: 'resuming',
      verb: 'resume',
      detail: { job, mode, snapshot: pause ? shownName(pause) : null, cause: opts.cause ?? 'user' },
    })
    const progress = progressOf(this.ctx, opts.op, row)
    progress.stage('resume', `resuming ${row.name} on ${row.server}`)
    let direct: ResumeResult | null = null
    let interrupted = false
    // lazy pages: the session runs once its processes are back, its memory follows (lazy-resume.ts)
    let lazyWhy: string | null = null
    const lazy = mode === 'memory' && !!pause?.checkpoint && this.lazy.settings.on
    if (lazy) lazyWhy = await this.lazy.arm(row.server, containerId, checkpoint)
    const armed = lazy && lazyWhy === null
    if (armed && pause) this.lazy.mark(row.id, pause.seq, containerId)
    try {
      const restored = await resumeDirect(d.engines, d.checkpoints, row.server, containerId, mode, checkpoint, pause?.detail.layout === 'split', { lazyArmed: armed })
      if (restored) direct = await this.finish(row.id, pause, directOutcome(restored, msSince(t0)), t0, undefined, armed)
    } catch {
      // a dropped connection or an engine error: the server job below settles it; if it finds the
      // container already running, that is this resume's own start
      interrupted = true
    }
    if (armed && !direct) {
      // Docker did not restore through the armed path: nothing lazy may linger for the job's restore
      lazyWhy = (await this.lazy.disarm(row.server, containerId)) ?? 'the restore through Docker did not start'
      if (pause) this.lazy.mark(row.id, pause.seq, null)
      void this.lazy.forget(row.server, containerId)
    }
    if (direct?.resumed && pause && armed) {
      direct.lazy = true
      this.lazy.follow(row, pause, containerId)
    }
    const r =
      direct ??
      (await this.finish(row.id, pause, await jobFollower(this.ctx, row)(job, ['resume', containerId, mode, checkpoint], () => undefined), t0, interrupted ? mode : undefined))
    if (r.resumed && r.mode === 'memory' && lazy && lazyWhy) r.note = `restored in full, not lazily: ${lazyWhy}`
    progress.done('resume', `${row.name} is running (${r.resumed ? r.mode : 'already'}${r.resumed && r.lazy ? ', memory arriving' : ''})`)
    return r
  }

  /** `lazy`: the memory is still arriving; the pause's artefacts stay until it is all in (lazy-resume.ts). */
  /** At start-up: follows the lazy restores a stopped Berth left (lazy-resume.ts). */
  followLazyLeft(): void {
    this.lazy.followLeft()
  }

  async finish(id: string, pause: PauseRow | undefined, o: JobOutcome, t0: number, startedAs?: PauseMode, lazy = false): Promise<ResumeResult> {
    const d = this.ctx.d
    const row = d.sessionsRepo.get(id)!
    if (!o.followed) {
      throw new BerthError(
        'unreachable',
        `lost the connection to ${row.server} while resuming ${row.name}; Berth confirms its state on the next contact (${o.reason ?? 'no answer'})`,
      )
    }
    const outcome = o.rc === 0 ? jobResult(ResumeJobResult, o) : undefined
    if (outcome && 'value' in outcome) {
      const reported = outcome.value.mode
      const restored = reported === 'none' && startedAs ? startedAs : reported
      const mode: PauseMode = restored === 'memory' || restored === 'frozen' ? restored : 'disk'
      const fallback = str(outcome.value.fallback)
      // what every start of the container needs before the session counts as running (secrets)
      if (restored !== 'none') {
        await d.sessions.runAfterStart(row, d.engines.get(row.server), containerOf(row), { kept: mode !== 'disk' }).catch((e: Error) =>
          d.lifecycle.note(id, 'after-start-failed', { reason: oneSentence(e.message) }),
        )
      }
      d.lifecycle.transition(id, {
        from: ['resuming'],
        to: 'running',
        verb: 'resume',
        patch: { mode: null, pausedBy: null, durable: false, failure: null },
        detail: { restored: restored === 'none' ? 'already running' : mode, fallback, stages: o.stages, ms: msSince(t0) },
      })
      if (pause) {
        d.pauses.update(id, pause.seq, { status: 'resumed', resumedAt: nowIso() })
        void d.checkpoints.runner(row.server).forget([str(pause.detail.resumeJob) ?? ''].filter(Boolean))
        if (!lazy) this.artefacts.removeSoon(pause)
      }
      if (restored === 'none') return { resumed: false }
      const r: ResumeResult = { resumed: true, mode, ms: msSince(t0) }
      if (fallback) r.fallback = fallback
      return r
    }
    const reason =
      (outcome && 'error' in outcome ? outcome.error : null) ??
      o.error ??
      (o.gone === 'lost' ? 'the server-side resume stopped without finishing' : o.gone === 'missing' ? 'the server-side resume never started' : `exit ${o.rc}`)
    await this.settleFailed(id, reason)
    throw new BerthError('engine', `could not resume ${row.name}: ${reason}`)
  }

  /** Whether the engine says the session's container is gone (an engine that does not answer: not known, so no). */
  private async containerLost(row: SessionRow): Promise<boolean> {
    return await inspectContainer(this.ctx.d.engines.get(row.server), containerOf(row)).then(
      (info) => info === null,
      () => false,
    )
  }

  /** A resume that failed or vanished: running if the engine says so, else back to paused. */
  async settleFailed(id: string, reason: string): Promise<void> {
    const d = this.ctx.d
    const row = d.sessionsRepo.get(id)!
    const info = await inspectContainer(d.engines.get(row.server), containerOf(row))
    if (info?.State.Running && !info.State.Paused) {
      await d.sessions.runAfterStart(row, d.engines.get(row.server), info.Id, { kept: true }).catch(() => undefined)
      d.lifecycle.transition(id, {
        from: ['resuming'],
        to: 'running',
        verb: 'resume',
        patch: { mode: null, pausedBy: null, durable: false },
        detail: { outcome: 'running', reason },
      })
    } else if (info) {
      d.lifecycle.transition(id, { from: ['resuming'], to: 'paused', verb: 'resume', detail: { outcome: 'still paused', reason } })
    } else {
      d.lifecycle.transition(id, { from: ['resuming'], to: 'failed', verb: 'resume', patch: { failure: `the container is gone: ${reason}` } })
    }
  }
}

/** The outcome of a resume done through the API, in the shape a server job's would have. */
function directOutcome(mode: PauseMode, runningMs: number): JobOutcome {
  return { followed: true, rc: 0, result: { mode }, error: undefined, notes: [], fallback: undefined, stages: { running: runningMs }, metrics: [], lines: 0 }
}
