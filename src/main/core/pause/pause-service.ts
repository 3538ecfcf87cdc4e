// Pause and resume: the verbs, their honest fallbacks, and the reconciliation of pauses and resumes
// that a crash or a dropped connection interrupted. The server-side part of each runs as a detached
// job on the server (checkpoints/server-script.ts); this service follows it, records what happened
// through the Lifecycle (compare-and-set + events log) and answers once the sandbox is stopped, or,
// with `wait`, once the pause is durable on the server and in the store.
import { randomBytes } from 'node:crypto'
import type { PauseAllResult, PauseResult, ResumeResult } from '../../../shared/contract'
import { BerthError, oneSentence, toErrorBody } from '../../../shared/errors'
import type { PauseMode, PausedBy } from '../../../shared/models'
import type { CoreBus } from '../bus'
import type { Checkpoints, CheckpointMethod } from '../checkpoints/checkpoints'
import type { JobLine, JobOutcome } from '../checkpoints/server-runner'
import type { EngineRegistry } from '../engines/engine-registry'
import { ProgressReporter } from '../progress'
import { containerName } from '../sessions/container-spec'
import type { Lifecycle } from '../sessions/lifecycle'
import type { SessionService } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { PauseRow, PausesRepo } from '../store/pauses-repo'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { StreamHub } from '../streams/stream-hub'

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

interface Deferred<T> {
  promise: Promise<T>
  resolve(v: T): void
  reject(e: unknown): void
  settled: boolean
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const d: Deferred<T> = {
    promise: new Promise<T>((res, rej) => {
      resolve = res
      reject = rej
    }),
    resolve: (v) => {
      if (d.settled) return
      d.settled = true
      resolve(v)
    },
    reject: (e) => {
      if (d.settled) return
      d.settled = true
      reject(e)
    },
    settled: false,
  }
  d.promise.catch(() => undefined)
  return d
}

interface Work {
  kind: 'pause' | 'resume' | 'reconcile'
  /** a pause: the sandbox stopped (the answer without --wait) */
  stopped: Deferred<PauseResult>
  /** the whole work: durable (pause) or running (resume) */
  done: Deferred<unknown>
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const msSince = (t0: number) => Math.round(performance.now() - t0)
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null)

export class PauseService implements PauseApi {
  private readonly work = new Map<string, Work>()
  /** How long a pause or resume keeps trying to reach its server again after the connection dropped. */
  reconnectMs = 90_000
  /**
   * Whether a pause's checkpoint and image are kept after the session resumed or finished. By default
   * they are removed (they are only needed until the resume); snapshots (issue 4) keep the ones they use.
   */
  readonly retain: Array<(pause: PauseRow) => boolean> = []
  /** Called when a pause became durable (snapshots record it, for instance). */
  readonly onDurable: Array<(session: SessionRow, pause: PauseRow) => void> = []

  constructor(private readonly d: PauseServiceDeps) {}

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
    const w = this.begin(row.id, 'pause')
    void this.runPause(row, req, w, t0).then(
      (r) => w.done.resolve(r),
      (e) => {
        w.stopped.reject(e)
        w.done.reject(e)
      },
    )
    void w.done.promise.catch(() => undefined).finally(() => this.end(row.id, w))
    if (req.wait) return (await w.done.promise) as PauseResult
    return await w.stopped.promise
  }

  async pauseAll(req: PauseRequest & { filter?: (row: SessionRow) => boolean } = {}): Promise<PauseAllResult> {
    const t0 = performance.now()
    const rows = this.d.sessionsRepo.inStates(['running', 'pausing']).filter((r) => !req.filter || req.filter(r))
    const results = await Promise.all(
      rows.map(async (r) => {
        const base = { id: r.id, name: r.name, server: r.server }
        try {
          return { ...base, result: await this.pause(r.id, req) }
        } catch (e) {
          return { ...base, error: toErrorBody(e) }
        }
      }),
    )
    return { results, ms: msSince(t0) }
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
    const image = `berth/${row.id}:${pause.snapshot}`
    const o = await this.followJob(row, pause.job, ['pause', containerId, pause.snapshot, requested, method, image, ...(await this.containerFacts(row.server, containerId))], (l) =>
      this.onPauseLine(row.id, pause, l, w, t0),
    )
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
        detail: { snapshot: pause.snapshot, mode, bytes: pause.bytes, stages: o.stages, notes: o.notes.length ? o.notes : undefined, ms: msSince(t0) },
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
    const info = await engine.docker
      .getContainer(pause.containerId)
      .inspect()
      .catch((e: { statusCode?: number }) => (e.statusCode === 404 ? null : Promise.reject(e)))
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
    const w = this.begin(row.id, 'resume')
    try {
      const r = await this.runResume(row, opts, t0)
      w.done.resolve(r)
      return r
    } catch (e) {
      w.done.reject(e)
      throw e
    } finally {
      this.end(row.id, w)
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
    try {
      direct = await this.resumeDirect(row, pause, mode, containerId, checkpoint, t0)
    } catch {
      direct = null // the server job below settles it (a dropped connection, an engine error)
    }
    const r = direct ?? (await this.finishResume(row.id, pause, await this.followJob(row, job, ['resume', containerId, mode, checkpoint], () => undefined), t0))
    progress.done('resume', `${row.name} is running (${r.resumed ? r.mode : 'already'})`)
    return r
  }

  /**
   * The common case through the Docker API (a millisecond a call, where the docker CLI costs 100-200):
   * restore, thaw or start, then check the container really runs. Answers null when the case needs
   * the server job (a restore that failed: it unfolds the pages and retries, or cold-boots).
   */
  private async resumeDirect(row: SessionRow, pause: PauseRow | undefined, mode: PauseMode, containerId: string, checkpoint: string, t0: number): Promise<ResumeResult | null> {
    const c = this.d.engines.get(row.server).docker.getContainer(containerId)
    let info = await c.inspect()
    // a checkpoint's exit that Docker has not recorded yet
    for (let i = 0; i < 150 && info.State.Running && !info.State.Paused && info.State.Status !== 'exited'; i++) {
      if (mode !== 'memory') break
      await sleep(20)
      info = await c.inspect()
    }
    const before = info.State.StartedAt
    const runs = async () => {
      const now = await c.inspect()
      return now.State.Running && !now.State.Paused && now.State.StartedAt !== before
    }
    if (mode === 'frozen') {
      if (!info.State.Paused) return null
      await c.unpause()
      const now = await c.inspect()
      if (!now.State.Running || now.State.Paused) return null
    } else if (mode === 'memory') {
      if (info.State.Running) return null
      try {
        await c.start({ _query: { checkpoint }, _body: {} } as object)
      } catch (e) {
        // Docker re-uploads a byte-identical tar that its GC has not removed yet: a second later it works
        if (!/already exists/i.test((e as Error).message)) return null
        await sleep(1000)
        await c.start({ _query: { checkpoint }, _body: {} } as object).catch(() => undefined)
      }
      if (!(await runs())) return null
      if (pause?.detail.layout === 'split') void this.afterRestore(row.server, containerId, checkpoint)
    } else {
      if (info.State.Running) return null
      await c.start()
      if (!(await runs())) return null
    }
    const restored: PauseMode = mode
    return await this.finishResume(row.id, pause, { followed: true, rc: 0, result: { mode: restored }, error: undefined, notes: [], fallback: undefined, stages: {}, lines: 0 }, t0)
  }

  /** containerd 1.6 leaves its extraction folder behind on every restore: removed off the critical path. */
  private async afterRestore(server: string, containerId: string, checkpoint: string): Promise<void> {
    try {
      const info = await this.d.engines.get(server).docker.getContainer(containerId).inspect()
      const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir ?? ''
      const root = upper.includes('/overlay2/') ? upper.slice(0, upper.indexOf('/overlay2/')) : ''
      if (root) await this.d.checkpoints.runner(server).run(['after-restore', info.Id, root, checkpoint])
    } catch {
      // best effort: the folders are small with the split layout
    }
  }

  private async finishResume(id: string, pause: PauseRow | undefined, o: JobOutcome, t0: number): Promise<ResumeResult> {
    const row = this.d.sessionsRepo.get(id)!
    if (!o.followed) {
      throw new BerthError(
        'unreachable',
        `lost the connection to ${row.server} while resuming ${row.name}; Berth confirms its state on the next contact (${o.reason ?? 'no answer'})`,
      )
    }
    if (o.rc === 0 && o.result) {
      const restored = str(o.result.mode)
      const mode: PauseMode = restored === 'memory' || restored === 'frozen' ? restored : 'disk'
      const fallback = str(o.result.fallback)
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
        // kept a little longer: a sandbox that dies right after its restore can still be looked at
        setTimeout(() => void this.removeAfterResume(pause), 2000).unref()
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

  /** A resume that failed or vanished: running if the engine says so, else back to paused. */
  private async settleFailedResume(id: string, reason: string): Promise<void> {
    const row = this.d.sessionsRepo.get(id)!
    const info = await this.d.engines
      .get(row.server)
      .docker.getContainer(row.containerId ?? containerName(id))
      .inspect()
      .catch((e: { statusCode?: number }) => (e.statusCode === 404 ? null : Promise.reject(e)))
    if (info?.State.Running && !info.State.Paused) {
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
    const w = this.begin(row.id, 'reconcile')
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
      this.end(row.id, w)
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

  /**
   * What the pause job would otherwise ask the docker CLI (100-200 ms a call on a small server):
   * the container's id, its init's pid, its writable layer and its volumes' paths.
   */
  private async containerFacts(server: string, containerId: string): Promise<string[]> {
    try {
      const info = await this.d.engines.get(server).docker.getContainer(containerId).inspect()
      const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir
      if (!info.State.Running || info.State.Paused || !info.State.Pid || !upper) return []
      const sources = (info.Mounts ?? []).map((m) => m.Source).filter((p): p is string => !!p && !/\s/.test(p))
      return [info.Id, String(info.State.Pid), upper, ...sources]
    } catch {
      return [] // the job inspects for itself
    }
  }

  /** Follows a server job (starting it when `launch` is given), reconnecting while the deadline lasts. */
  private async followJob(row: SessionRow, job: string, launch: string[] | null, onLine: (l: JobLine) => void, retry = true): Promise<JobOutcome> {
    const runner = this.d.checkpoints.runner(row.server)
    let o = launch ? await runner.start(job, launch, onLine) : await runner.follow(job, 0, onLine)
    if (o.followed || !retry) return o
    this.d.lifecycle.note(row.id, 'connection-lost', { server: row.server, job, reason: o.reason ?? null })
    const deadline = Date.now() + this.reconnectMs
    let delay = 200
    while (!o.followed && Date.now() < deadline) {
      await sleep(delay)
      delay = Math.min(delay * 2, 3000)
      const next = await this.d.checkpoints.runner(row.server).follow(job, o.lines, onLine)
      o = mergeOutcomes(o, next)
    }
    if (o.followed) this.d.lifecycle.note(row.id, 'connection-restored', { server: row.server, job })
    return o
  }

  private begin(id: string, kind: Work['kind']): Work {
    const w: Work = { kind, stopped: deferred(), done: deferred() }
    this.work.set(id, w)
    return w
  }

  private end(id: string, w: Work): void {
    if (this.work.get(id) === w) this.work.delete(id)
  }

  async settled(sessionId: string): Promise<void> {
    for (let w = this.work.get(sessionId); w; w = this.work.get(sessionId)) await w.done.promise.catch(() => undefined)
  }

  /** True while a pause, resume or reconciliation of the session runs in this process. */
  busy(sessionId: string): boolean {
    return this.work.has(sessionId)
  }

  private progress(op: string | undefined, row: SessionRow): ProgressReporter {
    return new ProgressReporter((p) => this.d.bus.emit('progress', p), { op, sessionId: row.id, server: row.server })
  }

  private async removeAfterResume(pause: PauseRow): Promise<void> {
    const row = this.d.sessionsRepo.get(pause.sessionId)
    if (row?.state !== 'running' || this.work.has(pause.sessionId)) return
    const info = await this.d.engines
      .get(pause.server)
      .docker.getContainer(pause.containerId)
      .inspect()
      .catch(() => null)
    if (!info?.State.Running) {
      this.d.lifecycle.note(pause.sessionId, 'restore-check', { snapshot: pause.snapshot, outcome: 'the container stopped right after its resume; its checkpoint is kept' })
      return
    }
    await this.removeArtefacts(pause)
  }

  /** Removes a pause's checkpoint and image from its server, unless something still needs them. */
  async removeArtefacts(pause: PauseRow, containerGone = false): Promise<void> {
    if (pause.removedAt || (!pause.checkpoint && !pause.image)) return
    if (this.retain.some((keep) => keep(pause))) return
    try {
      if (pause.checkpoint && !containerGone) await this.d.checkpoints.remove(pause.server, pause.containerId, pause.checkpoint)
      if (pause.image) {
        await this.d.engines
          .get(pause.server)
          .docker.getImage(pause.image)
          .remove()
          .catch((e: { statusCode?: number }) => (e.statusCode === 404 ? undefined : Promise.reject(e)))
      }
      this.d.pauses.update(pause.sessionId, pause.seq, { removedAt: nowIso() })
    } catch (e) {
      this.d.lifecycle.note(pause.sessionId, 'cleanup-failed', { snapshot: pause.snapshot, reason: oneSentence((e as Error).message) })
    }
  }
}

function mergeOutcomes(a: JobOutcome, b: JobOutcome): JobOutcome {
  return {
    followed: b.followed,
    rc: b.rc,
    gone: b.gone,
    result: b.result ?? a.result,
    error: b.error ?? a.error,
    notes: [...a.notes, ...b.notes],
    fallback: b.fallback ?? a.fallback,
    stages: { ...a.stages, ...b.stages },
    lines: b.lines,
    reason: b.reason,
  }
}

function stateError(row: SessionRow, verb: string): BerthError {
  if (row.state === 'finished') return new BerthError('refused', `cannot ${verb} session ${row.name}: the session finished`)
  return new BerthError('conflict', `cannot ${verb} session ${row.name}: it is ${row.state}`, { state: row.state })
}
