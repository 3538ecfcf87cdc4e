// Pause and resume: the verbs, their honest fallbacks, and the reconciliation of pauses and resumes
// that a crash or a dropped connection interrupted. The server-side part of each runs as a detached
// job on the server (checkpoints/server-script.ts); this service follows it, records what happened
// through the Lifecycle (compare-and-set + events log) and answers once the sandbox is stopped, or,
// with `wait`, once the pause is durable on the server and in the store.
import { randomBytes } from 'node:crypto'
import type { PauseAllResult, PauseResult, ResumeResult } from '../../../shared/contract'
import { BerthError, oneSentence, toErrorBody, type ErrorBody } from '../../../shared/errors'
import type { PauseMode, PausedBy } from '../../../shared/models'
import type { CoreBus } from '../bus'
import type { Checkpoints, CheckpointMethod } from '../checkpoints/checkpoints'
import type { JobLine, JobOutcome } from '../checkpoints/server-runner'
import type { EngineRegistry } from '../engines/engine-registry'
import { inspectContainer } from '../engines/engine'
import { holdExecs } from '../engines/exec-gate'
import { ProgressReporter } from '../progress'
import { containerName } from '../sessions/container-spec'
import type { Lifecycle } from '../sessions/lifecycle'
import type { SessionService } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { PauseRow, PausesRepo } from '../store/pauses-repo'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { StreamHub } from '../streams/stream-hub'
import { pauseImage } from '../snapshots/snapshot-names'
import { within } from '../deadline'
import { PauseArtefacts } from './artefacts'
import { containerFacts, resumeDirect } from './direct-resume'
import { followJob } from './job-follower'
import { SessionWork, type Work } from './session-work'

export interface PauseRequest {
  /** return once the pause is durable (fsync'd on the server, committed in the store) */
  wait?: boolean | undefined
  /** false: disk only (commit; resume cold-boots) */
  memory?: boolean | undefined
  by?: PausedBy | undefined
  /** why, for the events log ("idle for 600 s", "the machine is going to sleep") */
  reason?: string | undefined
  op?: string | undefined
}

/** Who asked for a resume: only a person or an attach resumes a session a person paused. */
export type ResumeCause = 'user' | 'attach' | 'wake' | 'connect'

/** What other domains call in-process (the ssh gateway resumes on connect, move pauses first...). */
export interface PauseApi {
  pause(ref: string, req?: PauseRequest): Promise<PauseResult>
  pauseAll(req?: PauseRequest & { filter?: (row: SessionRow) => boolean }): Promise<PauseAllResult>
  resume(ref: string, opts?: { cause?: ResumeCause; op?: string | undefined }): Promise<ResumeResult>
  /** Resumes a session paused by idleness or the sleep policy; null when it is not paused that way. */
  resumeIfAutoPaused(ref: string, cause: ResumeCause): Promise<ResumeResult | null>
  /** Waits until no pause or resume of the session is under way in this process. */
  settled(sessionId: string): Promise<void>
}

export interface PauseServiceDeps {
  sessionsRepo: SessionsRepo
  sessions: SessionService
  lifecycle: Lifecycle
  engines: EngineRegistry
  hub: StreamHub
  bus: CoreBus
  pauses: PausesRepo
  checkpoints: Checkpoints
}

const msSince = (t0: number) => Math.round(performance.now() - t0)
/** How long `pause --all` waits for a server to answer before it reports that server's sessions as not paused. */
export const PAUSE_ALL_REACH_MS = 3_000
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null)

export class PauseService implements PauseApi {
  private readonly work = new SessionWork()
  /** How long a pause or resume keeps trying to reach its server again after the connection dropped. */
  reconnectMs = 90_000
  /** Called when a pause became durable (snapshots record it, for instance). */
  readonly onDurable: Array<(session: SessionRow, pause: PauseRow) => void> = []
  /**
   * Set by the snapshots module: makes a paused session's lost container again from the newest
   * disk Berth kept of it (a restart) and says what came back. Without it, such a resume fails.
   */
  recreateLost: ((id: string, op?: string) => Promise<string>) | undefined
  /** Where pause artefacts go once nothing needs them; `artefacts.retain` keeps the ones snapshots use. */
  readonly artefacts: PauseArtefacts
  private closing = false

  constructor(private readonly d: PauseServiceDeps) {
    this.artefacts = new PauseArtefacts({
      engines: d.engines,
      checkpoints: d.checkpoints,
      pauses: d.pauses,
      sessions: d.sessionsRepo,
      lifecycle: d.lifecycle,
      busy: (id) => this.work.has(id),
    })
  }

  /** The checkpoint primitive (create, verify, locate, restore, remove), for move, fork and rewind. */
  get checkpoints(): Checkpoints {
    return this.d.checkpoints
  }

  /** The newest pause of a session: its mode, snapshot, checkpoint, image and server. */
  latestPause(sessionId: string): PauseRow | undefined {
    return this.d.pauses.latest(sessionId)
  }

  /**
   * A paused session moved (issue 4): its latest pause's checkpoint now lives in `containerId` on
   * `server`, under the same name, so resume and clean-up look there.
   */
  movedTo(sessionId: string, server: string, containerId: string): void {
    const p = this.d.pauses.latest(sessionId)
    if (p) this.d.pauses.relocate(sessionId, p.seq, server, containerId)
  }

  /** Berth is stopping: work in flight stops waiting for its servers (their jobs go on there). */
  close(): void {
    this.closing = true
  }

  // --------------------------------------------------------------------------------------- pause --

  async pause(ref: string, req: PauseRequest = {}): Promise<PauseResult> {
    const t0 = performance.now()
    let row = this.d.sessions.resolve(ref)
    const current = this.work.get(row.id)
    if (current) {
      if (current.kind === 'pause') {
        await (req.wait ? current.done.promise : current.stopped.promise).catch(() => undefined)
        row = this.d.sessions.resolve(row.id)
        if (row.state === 'paused') return { paused: false }
      } else {
        await current.done.promise.catch(() => undefined)
        row = this.d.sessions.resolve(row.id)
      }
    }
    if (row.state === 'pausing' || row.state === 'resuming' || (row.state === 'paused' && !row.durable)) {
      await this.reconcile(row)
      row = this.d.sessions.resolve(row.id)
    }
    if (row.state === 'paused') {
      if (req.wait && !row.durable) throw new BerthError('internal', `session ${row.name} is paused but Berth could not make its pause durable yet`)
      return { paused: false }
    }
    if (row.state !== 'running') throw stateError(row, 'pause')
    // work that began while this call waited (a snapshot's hold) goes first
    if (this.work.has(row.id)) return await this.pause(row.id, req)
    const w = this.work.begin(row.id, 'pause')
    void this.runPause(row, req, w, t0).then(
      (r) => w.done.resolve(r),
      (e) => {
        w.stopped.reject(e)
        w.done.reject(e)
      },
    )
    void w.done.promise.catch(() => undefined).finally(() => this.work.end(row.id, w))
    if (req.wait) return (await w.done.promise) as PauseResult
    return await w.stopped.promise
  }

  async pauseAll(req: PauseRequest & { filter?: (row: SessionRow) => boolean } = {}): Promise<PauseAllResult> {
    const t0 = performance.now()
    const rows = this.d.sessionsRepo.inStates(['running', 'pausing']).filter((r) => !req.filter || req.filter(r))
    // the lid-close path: a server that does not answer soon holds up no one (its sessions keep running there)
    const reach = new Map<string, Promise<ErrorBody | null>>()
    const results = await Promise.all(
      rows.map(async (r) => {
        const base = { id: r.id, name: r.name, server: r.server }
        if (!reach.has(r.server)) reach.set(r.server, this.reachableWithin(r.server, PAUSE_ALL_REACH_MS))
        const unreachable = await reach.get(r.server)!
        if (unreachable) return { ...base, error: { ...unreachable, message: `${unreachable.message}: ${r.name} was not paused and keeps running there` } }
        try {
          return { ...base, result: await this.pause(r.id, req) }
        } catch (e) {
          return { ...base, error: toErrorBody(e) }
        }
      }),
    )
    return { results, ms: msSince(t0) }
  }

  /** Null once the server's engine answers within `ms`; else why not (an error body, as a result carries it). */
  private async reachableWithin(server: string, ms: number): Promise<ErrorBody | null> {
    const ready = (async () => await this.d.engines.get(server).ready())().then(
      () => null,
      (e: unknown) => toErrorBody(e),
    )
    return await within(ready, ms, (): ErrorBody => ({ code: 'unreachable', message: `server ${server} did not answer within ${ms / 1000} s` }))
  }

  private async runPause(row: SessionRow, req: PauseRequest, w: Work, t0: number): Promise<PauseResult> {
    const by: PausedBy = req.by ?? 'user'
    const containerId = row.containerId ?? containerName(row.id)
    let requested: PauseMode = req.memory === false ? 'disk' : 'memory'
    let method: CheckpointMethod = 'docker'
    let fallback: string | null = null
    if (requested === 'memory') {
      const support = await this.d.checkpoints.support(row.server)
      if (!support.memory) {
        requested = 'frozen'
        fallback = support.reason
      } else method = support.method ?? 'docker'
    }
    const pause = this.d.pauses.insert({
      sessionId: row.id,
      server: row.server,
      containerId,
      requested,
      mode: null,
      pausedBy: by,
      checkpoint: null,
      image: null,
      bytes: 0,
      fallback,
      failure: null,
      detail: { method, reason: req.reason ?? null },
      job: (seq) => `${row.id}-p${seq}-${randomBytes(3).toString('hex')}`,
    })
    try {
      this.d.lifecycle.transition(row.id, {
        from: ['running'],
        to: 'pausing',
        verb: 'pause',
        patch: { pausedBy: by, mode: null, durable: false },
        detail: { snapshot: pause.snapshot, job: pause.job, requested, method, by, reason: req.reason ?? null, fallback },
      })
    } catch (e) {
      this.d.pauses.update(row.id, pause.seq, { status: 'failed', failure: `never started: ${(e as Error).message}` })
      throw e
    }
    const progress = this.progress(req.op, row)
    progress.stage('pause', `pausing ${row.name} on ${row.server} (${requested === 'memory' ? 'keeping its memory' : requested})`)
    // Terminals' exec sessions live outside the container's state: detach them (views stay in tmux).
    this.d.hub.closeSession(row.id, `session ${row.name} is pausing; reattach once it resumes`)
    // no process may be starting in the container as the engine freezes it (engines/exec-gate.ts)
    const release = await holdExecs(containerId, `session ${row.name} is pausing; run it again once it resumes`)
    let o: JobOutcome
    try {
      const image = pauseImage(row.id, pause.snapshot)
      const facts = await containerFacts(this.d.engines, row.server, containerId)
      // where the time goes before the server starts (the job's own stages are timed on the server)
      pause.detail.core = { prepareMs: msSince(t0) }
      o = await this.followJob(row, pause.job, ['pause', containerId, pause.snapshot, requested, method, image, ...facts], (l) => {
        if (l.kind === 'stage' && l.stage === 'begin') (pause.detail.core as Record<string, number>).beginMs = msSince(t0)
        this.onPauseLine(row.id, pause, l, w, t0)
      })
    } finally {
      release()
    }
    const result = await this.finishPause(row.id, pause, o, w, t0)
    progress.done('pause', result.paused ? `${row.name} is paused (${result.mode})` : `${row.name} was already paused`)
    return result
  }

  /** "stage stopped MODE": the sandbox no longer runs; the session is paused (not yet durable). */
  private onPauseLine(id: string, pause: PauseRow, l: JobLine, w: Work, t0: number): void {
    if (l.kind === 'fallback') {
      pause.fallback = l.text
      this.d.pauses.update(id, pause.seq, { fallback: l.text })
    }
    if (l.kind !== 'stage' || l.stage !== 'stopped') return
    const mode = (l.arg === 'memory' || l.arg === 'frozen' || l.arg === 'disk' ? l.arg : pause.requested) as PauseMode
    try {
      this.markPaused(id, pause, mode)
      w.stopped.resolve(this.pauseResult(pause, mode, false, t0))
    } catch (e) {
      w.stopped.reject(e)
    }
  }

  private markPaused(id: string, pause: PauseRow, mode: PauseMode): void {
    pause.mode = mode
    pause.status = 'paused'
    this.d.pauses.update(id, pause.seq, { mode, status: 'paused', fallback: pause.fallback })
    const cur = this.d.sessionsRepo.get(id)
    if (cur?.state !== 'pausing') return
    this.d.lifecycle.transition(id, {
      from: ['pausing'],
      to: 'paused',
      verb: 'pause',
      patch: { mode, durable: false },
      detail: { snapshot: pause.snapshot, mode, fallback: pause.fallback },
    })
  }

  private pauseResult(pause: PauseRow, mode: PauseMode, durable: boolean, t0: number): PauseResult {
    const r: PauseResult = { paused: true, mode, durable, snapshot: pause.snapshot, ms: msSince(t0) }
    if (pause.fallback) r.fallback = pause.fallback
    return r
  }

  /** Applies a pause job's outcome: durable, failed (by the engine's truth), or still out of reach. */
  private async finishPause(id: string, pause: PauseRow, o: JobOutcome, w: Work | undefined, t0: number): Promise<PauseResult> {
    const name = this.d.sessionsRepo.get(id)?.name ?? id
    if (!o.followed) {
      throw new BerthError(
        'unreachable',
        `lost the connection to ${pause.server} while pausing ${name}; the pause goes on there and Berth confirms it on the next contact (${o.reason ?? 'no answer'})`,
      )
    }
    if (o.rc === 0 && o.result) {
      const mode = (str(o.result.mode) ?? pause.requested) as PauseMode
      if (!pause.fallback && str(o.result.fallback)) pause.fallback = str(o.result.fallback)
      if (this.d.sessionsRepo.get(id)?.state === 'pausing') this.markPaused(id, pause, mode)
      const durableAt = nowIso()
      Object.assign(pause, {
        status: 'durable',
        mode,
        checkpoint: str(o.result.checkpoint),
        image: str(o.result.image),
        bytes: Number(o.result.bytes) || 0,
        durableAt,
      } satisfies Partial<PauseRow>)
      pause.detail = { ...pause.detail, layout: str(o.result.layout) }
      this.d.pauses.update(id, pause.seq, {
        status: 'durable',
        mode,
        checkpoint: pause.checkpoint,
        image: pause.image,
        bytes: pause.bytes,
        fallback: pause.fallback,
        durableAt,
        detail: { ...pause.detail, layout: str(o.result.layout), stages: o.stages, notes: o.notes },
      })
      // committed with synchronous=FULL before anyone hears "durable"
      const row = this.d.lifecycle.amend(id, {
        in: ['paused'],
        patch: { durable: true },
        kind: 'pause-durable',
        detail: { snapshot: pause.snapshot, mode, bytes: pause.bytes, stages: o.stages, core: pause.detail.core, notes: o.notes.length ? o.notes : undefined, ms: msSince(t0) },
      })
      if (row) for (const f of this.onDurable) f(row, pause)
      void this.d.checkpoints.runner(pause.server).forget([pause.job])
      const result = this.pauseResult(pause, mode, true, t0)
      w?.stopped.resolve(result)
      return result
    }
    // the job failed or vanished: the engine says what is true
    const reason = o.error ?? (o.gone === 'lost' ? 'the server-side pause stopped without finishing' : o.gone === 'missing' ? 'the server-side pause never started' : `exit ${o.rc}`)
    return await this.settleFailedPause(id, pause, reason, t0, w)
  }

  private async settleFailedPause(id: string, pause: PauseRow, reason: string, t0: number, w?: Work): Promise<PauseResult> {
    const engine = this.d.engines.get(pause.server)
    const info = await inspectContainer(engine, pause.containerId)
    const row = this.d.sessionsRepo.get(id)!
    this.d.pauses.update(id, pause.seq, { status: 'failed', failure: reason })
    if (info?.State.Paused) await engine.docker.getContainer(pause.containerId).unpause().catch(() => undefined)
    if (row.state === 'paused' && info && (info.State.Running || info.State.Paused)) {
      // reported paused, then undone on the server: the log shows it coming back
      this.d.lifecycle.transition(id, { from: ['paused'], to: 'resuming', verb: 'pause', detail: { outcome: 'the pause was undone', reason } })
    }
    const from = this.d.sessionsRepo.get(id)!.state === 'paused' ? (['paused'] as const) : (['pausing', 'resuming'] as const)
    if (info && (info.State.Running || info.State.Paused)) {
      this.d.lifecycle.transition(id, {
        from: [...from],
        to: 'running',
        verb: 'pause',
        patch: { mode: null, pausedBy: null, durable: false },
        detail: { outcome: 'the pause did not happen; the session kept running', reason },
      })
      throw new BerthError('internal', `could not pause ${row.name}: ${reason}; it keeps running`)
    }
    if (!info) {
      this.d.lifecycle.transition(id, { from: [...from], to: 'failed', verb: 'pause', patch: { failure: `the container is gone: ${reason}` } })
      throw new BerthError('internal', `could not pause ${row.name}: ${reason}; its container is gone`)
    }
    // stopped without a complete snapshot: its files are intact, so it is paused on disk
    const verified = pause.requested === 'memory' ? await this.d.checkpoints.verify(pause.server, pause.containerId, pause.snapshot).catch(() => null) : null
    const mode: PauseMode = verified ? 'memory' : 'disk'
    pause.fallback = verified ? pause.fallback : `${reason}; the session stopped, so it resumes from its files`
    if (row.state === 'pausing') this.markPaused(id, pause, mode)
    else this.d.pauses.update(id, pause.seq, { mode, fallback: pause.fallback })
    if (verified) pause.checkpoint = pause.snapshot
    await this.d.checkpoints.runner(pause.server).fields(['sync', pause.containerId], 'syncing the session to disk')
    pause.status = 'durable'
    this.d.pauses.update(id, pause.seq, { status: 'durable', checkpoint: pause.checkpoint, durableAt: nowIso(), failure: reason })
    this.d.lifecycle.amend(id, { in: ['paused'], patch: { durable: true }, kind: 'pause-durable', detail: { snapshot: pause.snapshot, mode, after: reason } })
    const result = this.pauseResult(pause, mode, true, t0)
    w?.stopped.resolve(result)
    return result
  }

  // -------------------------------------------------------------------------------------- resume --

  async resume(ref: string, opts: { cause?: ResumeCause; op?: string | undefined } = {}): Promise<ResumeResult> {
    const t0 = performance.now()
    let row = this.d.sessions.resolve(ref)
    const current = this.work.get(row.id)
    if (current) {
      await current.done.promise.catch(() => undefined)
      row = this.d.sessions.resolve(row.id)
      if (current.kind === 'resume' && row.state === 'running') return { resumed: false }
    }
    if (row.state === 'pausing' || row.state === 'resuming' || (row.state === 'paused' && !row.durable)) {
      await this.reconcile(row)
      row = this.d.sessions.resolve(row.id)
    }
    if (row.state === 'running') return { resumed: false }
    if (row.state !== 'paused') throw stateError(row, 'resume')
    if (this.work.has(row.id)) return await this.resume(row.id, opts)
    const w = this.work.begin(row.id, 'resume')
    try {
      const r = await this.runResume(row, opts, t0)
      w.done.resolve(r)
      return r
    } catch (e) {
      w.done.reject(e)
      throw e
    } finally {
      this.work.end(row.id, w)
    }
  }

  async resumeIfAutoPaused(ref: string, cause: ResumeCause): Promise<ResumeResult | null> {
    let row = this.d.sessions.resolve(ref)
    const current = this.work.get(row.id)
    if (current?.kind === 'pause') {
      await current.done.promise.catch(() => undefined)
      row = this.d.sessions.resolve(row.id)
    }
    if (row.state !== 'paused' && row.state !== 'pausing') return null
    if (row.pausedBy === 'user' || row.pausedBy === null) return null
    return await this.resume(row.id, { cause })
  }

  private async runResume(row: SessionRow, opts: { cause?: ResumeCause; op?: string | undefined }, t0: number): Promise<ResumeResult> {
    const pause = this.d.pauses.latest(row.id)
    if (this.recreateLost && (await this.containerLost(row))) {
      const note = await this.recreateLost(row.id, opts.op)
      if (pause) {
        this.d.pauses.update(row.id, pause.seq, { status: 'resumed', resumedAt: nowIso() })
        this.artefacts.removeSoon(pause)
      }
      const r: ResumeResult = { resumed: true, mode: 'disk', ms: msSince(t0), note }
      if (pause?.mode === 'memory' || pause?.mode === 'frozen') r.fallback = 'the container was gone, and its memory with it'
      return r
    }
    const mode: PauseMode = row.mode ?? pause?.mode ?? 'disk'
    const containerId = row.containerId ?? containerName(row.id)
    const checkpoint = pause?.checkpoint ?? pause?.snapshot ?? '-'
    const job = `${row.id}-r${pause?.seq ?? 0}-${randomBytes(3).toString('hex')}`
    if (pause) this.d.pauses.update(row.id, pause.seq, { detail: { ...pause.detail, resumeJob: job } })
    this.d.lifecycle.transition(row.id, {
      from: ['paused'],
      to: 'resuming',
      verb: 'resume',
      detail: { job, mode, snapshot: pause?.snapshot ?? null, cause: opts.cause ?? 'user' },
    })
    const progress = this.progress(opts.op, row)
    progress.stage('resume', `resuming ${row.name} on ${row.server}`)
    let direct: ResumeResult | null = null
    let interrupted = false
    try {
      const restored = await resumeDirect(this.d.engines, this.d.checkpoints, row.server, containerId, mode, checkpoint, pause?.detail.layout === 'split')
      if (restored) direct = await this.finishResume(row.id, pause, directOutcome(restored, msSince(t0)), t0)
    } catch {
      // a dropped connection or an engine error: the server job below settles it; if it finds the
      // container already running, that is this resume's own start
      interrupted = true
    }
    const r =
      direct ??
      (await this.finishResume(row.id, pause, await this.followJob(row, job, ['resume', containerId, mode, checkpoint], () => undefined), t0, interrupted ? mode : undefined))
    progress.done('resume', `${row.name} is running (${r.resumed ? r.mode : 'already'})`)
    return r
  }

  private async finishResume(id: string, pause: PauseRow | undefined, o: JobOutcome, t0: number, startedAs?: PauseMode): Promise<ResumeResult> {
    const row = this.d.sessionsRepo.get(id)!
    if (!o.followed) {
      throw new BerthError(
        'unreachable',
        `lost the connection to ${row.server} while resuming ${row.name}; Berth confirms its state on the next contact (${o.reason ?? 'no answer'})`,
      )
    }
    if (o.rc === 0 && o.result) {
      const restored = str(o.result.mode) === 'none' && startedAs ? startedAs : str(o.result.mode)
      const mode: PauseMode = restored === 'memory' || restored === 'frozen' ? restored : 'disk'
      const fallback = str(o.result.fallback)
      // what every start of the container needs before the session counts as running (secrets)
      if (restored !== 'none') {
        const cid = row.containerId ?? containerName(id)
        await this.d.sessions.runAfterStart(row, this.d.engines.get(row.server), cid).catch((e: Error) =>
          this.d.lifecycle.note(id, 'after-start-failed', { reason: oneSentence(e.message) }),
        )
      }
      this.d.lifecycle.transition(id, {
        from: ['resuming'],
        to: 'running',
        verb: 'resume',
        patch: { mode: null, pausedBy: null, durable: false, failure: null },
        detail: { restored: restored === 'none' ? 'already running' : mode, fallback, stages: o.stages, ms: msSince(t0) },
      })
      if (pause) {
        this.d.pauses.update(id, pause.seq, { status: 'resumed', resumedAt: nowIso() })
        void this.d.checkpoints.runner(row.server).forget([str(pause.detail.resumeJob) ?? ''].filter(Boolean))
        this.artefacts.removeSoon(pause)
      }
      if (restored === 'none') return { resumed: false }
      const r: ResumeResult = { resumed: true, mode, ms: msSince(t0) }
      if (fallback) r.fallback = fallback
      return r
    }
    const reason = o.error ?? (o.gone === 'lost' ? 'the server-side resume stopped without finishing' : o.gone === 'missing' ? 'the server-side resume never started' : `exit ${o.rc}`)
    await this.settleFailedResume(id, reason)
    throw new BerthError('internal', `could not resume ${row.name}: ${reason}`)
  }

  /** Whether the engine says the session's container is gone (an engine that does not answer: not known, so no). */
  private async containerLost(row: SessionRow): Promise<boolean> {
    return await inspectContainer(this.d.engines.get(row.server), row.containerId ?? containerName(row.id)).then(
      (info) => info === null,
      () => false,
    )
  }

  /** A resume that failed or vanished: running if the engine says so, else back to paused. */
  private async settleFailedResume(id: string, reason: string): Promise<void> {
    const row = this.d.sessionsRepo.get(id)!
    const info = await inspectContainer(this.d.engines.get(row.server), row.containerId ?? containerName(id))
    if (info?.State.Running && !info.State.Paused) {
      await this.d.sessions.runAfterStart(row, this.d.engines.get(row.server), info.Id).catch(() => undefined)
      this.d.lifecycle.transition(id, {
        from: ['resuming'],
        to: 'running',
        verb: 'resume',
        patch: { mode: null, pausedBy: null, durable: false },
        detail: { outcome: 'running', reason },
      })
    } else if (info) {
      this.d.lifecycle.transition(id, { from: ['resuming'], to: 'paused', verb: 'resume', detail: { outcome: 'still paused', reason } })
    } else {
      this.d.lifecycle.transition(id, { from: ['resuming'], to: 'failed', verb: 'resume', patch: { failure: `the container is gone: ${reason}` } })
    }
  }

  // ---------------------------------------------------------------------------------- reconcile --

  /**
   * Brings a session that a crash or a dropped connection left mid-way to a consistent state: the
   * pause's own job on the server says what happened; when it is gone, the engine says what is true.
   */
  async reconcile(row: SessionRow): Promise<void> {
    if (this.work.has(row.id)) return await this.settled(row.id)
    if (row.state !== 'pausing' && row.state !== 'resuming' && !(row.state === 'paused' && !row.durable)) return
    const w = this.work.begin(row.id, 'reconcile')
    try {
      const pause = this.d.pauses.latest(row.id)
      const t0 = performance.now()
      if (row.state === 'resuming') {
        const job = str(pause?.detail.resumeJob)
        if (!job) return await this.settleFailedResume(row.id, 'Berth stopped before the resume started on the server')
        const o = await this.followJob(row, job, null, () => undefined, false)
        if (!o.followed) return
        await this.finishResume(row.id, pause, o, t0).catch(() => undefined)
        return
      }
      if (!pause) {
        await this.settleFailedPause(row.id, this.orphanPause(row), 'Berth has no record of this pause', t0).catch(() => undefined)
        return
      }
      const o = await this.followJob(row, pause.job, null, (l) => this.onPauseLine(row.id, pause, l, w, t0), false)
      if (!o.followed) return
      await this.finishPause(row.id, pause, o, undefined, t0).catch(() => undefined)
    } finally {
      w.done.resolve(undefined)
      this.work.end(row.id, w)
    }
  }

  /** Reconciles every session of a server that is mid-way (after it became reachable again). */
  async reconcileServer(server: string): Promise<number> {
    const rows = this.d.sessionsRepo
      .inStates(['pausing', 'resuming', 'paused'])
      .filter((r) => r.server === server && (r.state !== 'paused' || !r.durable) && !this.work.has(r.id))
    await Promise.all(rows.map((r) => this.reconcile(r).catch(() => undefined)))
    return rows.length
  }

  async reconcileAll(): Promise<number> {
    const servers = new Set(this.d.sessionsRepo.inStates(['pausing', 'resuming', 'paused']).map((r) => r.server))
    let n = 0
    for (const s of servers) n += await this.reconcileServer(s).catch(() => 0)
    return n
  }

  private orphanPause(row: SessionRow): PauseRow {
    return {
      sessionId: row.id,
      seq: 0,
      snapshot: 'pause-0',
      server: row.server,
      containerId: row.containerId ?? containerName(row.id),
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

  // ------------------------------------------------------------------------------------ plumbing --

  private followJob(row: SessionRow, job: string, launch: string[] | null, onLine: (l: JobLine) => void, retry = true): Promise<JobOutcome> {
    const deps = { checkpoints: this.d.checkpoints, note: (kind: string, detail: Record<string, unknown>) => this.d.lifecycle.note(row.id, kind, detail), reconnectMs: this.reconnectMs, closing: () => this.closing }
    return followJob(deps, row.server, job, launch, onLine, retry)
  }

  async settled(sessionId: string): Promise<void> {
    await this.work.settled(sessionId)
  }

  /** Runs `fn` while no pause, resume or reconciliation of the session runs; those wait for it. */
  exclusive<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return this.work.hold(sessionId, fn)
  }

  /** True while a pause, resume, reconciliation or hold of the session runs in this process. */
  busy(sessionId: string): boolean {
    return this.work.has(sessionId)
  }

  private progress(op: string | undefined, row: SessionRow): ProgressReporter {
    return new ProgressReporter((p) => this.d.bus.emit('progress', p), { op, sessionId: row.id, server: row.server })
  }

  /** Removes a pause's checkpoint and image (see PauseArtefacts). */
  async removeArtefacts(pause: PauseRow, containerGone = false): Promise<void> {
    await this.artefacts.remove(pause, containerGone)
  }
}

/** The outcome of a resume done through the API, in the shape a server job's would have. */
function directOutcome(mode: PauseMode, runningMs: number): JobOutcome {
  return { followed: true, rc: 0, result: { mode }, error: undefined, notes: [], fallback: undefined, stages: { running: runningMs }, lines: 0 }
}

function stateError(row: SessionRow, verb: string): BerthError {
  if (row.state === 'finished') return new BerthError('refused', `cannot ${verb} session ${row.name}: the session finished`)
  return new BerthError('conflict', `cannot ${verb} session ${row.name}: it is ${row.state}`, { state: row.state })
}
