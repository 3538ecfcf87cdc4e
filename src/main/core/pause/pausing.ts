// One pause of one session: it records the pause, starts its server job, follows its stages (frozen:
// the session no longer runs and its files are durable; stopped; durable) and applies the outcome
// the server decided, or, when the job failed or vanished, what the engine says is true.
import { randomBytes } from 'node:crypto'
import type { PauseResult } from '../../../shared/contract'
import { BerthError } from '../../../shared/errors'
import type { PauseMode, PausedBy } from '../../../shared/models'
import type { CheckpointMethod } from '../checkpoints/checkpoints'
import { pauseJobResult, type JobLine, type JobOutcome, type PauseJobResult } from '../engines/server-script/job-protocol'
import { inspectContainer } from '../engines/engine'
import { holdExecs } from '../engines/exec-gate'
import { nowIso } from '../store/database'
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'
import { pauseImage } from '../engines/docker-names'
import { containerFacts } from './direct-resume'
import { isPauseMode, jobFollower, msSince, progressOf, shownName, type PauseContext } from './pause-context'
import { containerOf } from '../sessions/container-spec'
import { DEFAULT_MIBPS, DEFAULT_OVERHEAD_MS, DISK_MS, estimateMs, planDumps, type PlannedDump, type ServerRate } from './pause-planner'
import type { Work } from './session-work'
import type { BatchFreeze, FreezeGate } from './freeze-batch'
import { DumpProgress } from './dump-progress'

export interface PauseRequest {
  /** return once the pause is durable (fsync'd on the server, committed in the store) */
  wait?: boolean | undefined
  /** false: disk only (commit; resume cold-boots) */
  memory?: boolean | undefined
  by?: PausedBy | undefined
  /** why, for the events log ("idle for 600 s", "the machine is going to sleep") */
  reason?: string | undefined
  op?: string | undefined
  /** the pause is over by then (from its start): durable, or given up with each part's state */
  deadlineMs?: number | undefined
  /** what a session whose memory does not fit becomes: disk (one pause), frozen (the lid closing) */
  overflow?: 'frozen' | 'disk' | undefined
  /** its place in a plan of several pauses (pause --all) */
  plan?: PlannedDump | undefined
  /** the turn of its dump in its server's order */
  turn?: string | undefined
  /** pause --all's stage one: the session is frozen with the others of its server (freeze-batch.ts) */
  batch?: FreezeGate | undefined
  /** when the pause began (performance.now()), if before this call: pause --all's start, which its times count from */
  startedAt?: number | undefined
}

type Paused = Extract<PauseResult, { paused: true }>

/** How much sooner than the core the server must be done: its last lines crossing to the core. */
const JOB_MARGIN_MS = 250

/** A single pause's deadline when none is given: generous (the lid-close path passes its own). */
export const PAUSE_DEADLINE_MS = 120_000

/** Turns for the servers' dump queues: increasing, of one width, so the server orders them by name. */
let lastTurn = 0
export function nextTurn(): string {
  lastTurn = Math.max(lastTurn + 1, Date.now() * 1000)
  return String(lastTurn).padStart(17, '0')
}

export class Pausing {
  constructor(private readonly ctx: PauseContext) {}

  async run(row: SessionRow, req: PauseRequest, w: Work, t0: number): Promise<PauseResult> {
    const d = this.ctx.d
    const by: PausedBy = req.by ?? 'user'
    const deadlineMs = req.deadlineMs ?? PAUSE_DEADLINE_MS
    const containerId = containerOf(row)
    let requested: PauseMode = req.memory === false ? 'disk' : 'memory'
    let method: CheckpointMethod = 'docker'
    let fallback: string | null = null
    if (requested === 'memory') {
      // what the last test found holds; without one, wait for it a while (never on the lid-close path)
      const support = await d.checkpoints.support(row.server, { quick: true, waitMs: req.overflow === 'frozen' ? Math.min(2000, deadlineMs / 4) : 14_000 })
      if (!support.memory) {
        requested = 'frozen'
        fallback = support.reason
      } else method = support.method ?? 'docker'
    }
    const plan = requested === 'memory' ? (req.plan ?? this.planOne(row, deadlineMs, req.overflow ?? 'disk')) : undefined
    const pause = d.pauses.insert({
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
      detail: { method, reason: req.reason ?? null, deadlineMs, plan: plan ? { estimateMs: plan.estimateMs, budgetMs: plan.budgetMs, order: plan.order } : null, listed: this.ctx.listedName?.(row) ?? null },
      job: (seq) => `${row.id}-p${seq}-${randomBytes(3).toString('hex')}`,
    })
    try {
      d.lifecycle.transition(row.id, {
        from: ['running'],
        to: 'pausing',
        verb: 'pause',
        patch: { pausedBy: by, mode: null, durable: false },
        detail: { snapshot: shownName(pause), job: pause.job, requested, method, by, reason: req.reason ?? null, fallback, deadlineMs },
      })
    } catch (e) {
      d.pauses.update(row.id, pause.seq, { status: 'failed', failure: `never started: ${(e as Error).message}` })
      throw e
    }
    const progress = progressOf(this.ctx, req.op, row)
    progress.stage('pause', `pausing ${row.name} on ${row.server} (${requested === 'memory' ? 'keeping its memory' : requested})`)
    // Terminals' exec sessions live outside the container's state: detach them (views stay in tmux).
    d.hub.closeSession(row.id, `session ${row.name} is pausing; reattach once it resumes`)
    // no process may be starting in the container as the engine freezes it (engines/exec-gate.ts)
    const release = await holdExecs(containerId, `session ${row.name} is pausing; run it again once it resumes`)
    let o: JobOutcome
    try {
      const facts = await containerFacts(d.engines, row.server, containerId)
      const batch = await this.freezeWithOthers(row, pause, requested, facts, req.batch, t0)
      // where the time goes before the server starts (the job's own stages are timed on the server)
      pause.detail.core = { prepareMs: msSince(t0) }
      const options = [
        // frozen with the others of its server, its files durable: the job does not freeze it again
        ...(batch?.frozen ? ['frozen=1', `ended=${batch.execsEnded}`] : []),
        // the server wraps up a little before the core's own deadline, so its outcome arrives in time
        `deadline=${Math.max(1000, Math.round(deadlineMs - msSince(t0) - JOB_MARGIN_MS))}`,
        `overflow=${req.overflow ?? 'disk'}`,
        ...(plan ? [`budget=${plan.budgetMs}`, `estimate=${plan.estimateMs}`, ...this.rateOptions(row.server), `turn=${req.turn ?? nextTurn()}`] : []),
      ]
      const args = ['pause', containerId, pause.snapshot, requested, method, pauseImage(row.id, pause.snapshot), ...options, '--', ...facts]
      const dump = new DumpProgress(progress, row.name, pause.detail)
      o = await jobFollower(this.ctx, row)(pause.job, args, (l) => this.onLine(row.id, pause, l, w, t0, progress, row.name, dump), { limitSeconds: deadlineMs / 1000 + 30 })
    } finally {
      release()
    }
    const result = await this.finish(row.id, pause, o, w, t0)
    progress.done('pause', result.paused ? `${row.name} is paused (${result.mode}${result.durable ? ', durable' : ''})` : `${row.name} was already paused`)
    return result
  }

  /**
   * Stage one with the other sessions of its server (pause --all): frozen there with its files
   * durable, at the moment the server answered (its frozen time); its job then only writes its
   * memory. It is reported paused once that job runs on the server (its first stage), so a link cut
   * in between never leaves a frozen session that no job on the server finishes. A session the batch
   * could not freeze is frozen by its own job, as a single pause is.
   */
  private async freezeWithOthers(
    row: SessionRow,
    pause: PauseRow,
    requested: PauseMode,
    facts: string[],
    gate: FreezeGate | undefined,
    t0: number,
  ): Promise<BatchFreeze | null> {
    if (!gate) return null
    if (requested === 'disk' || facts.length < 3) {
      gate.leave(row.id)
      return null
    }
    const f = await gate.join(row.id, { facts, mode: requested === 'memory' ? 'memory' : 'frozen' })
    if (!f.frozen) {
      pause.detail.batch = { frozen: false, reason: f.reason }
      return f
    }
    pause.detail.batch = { frozen: true }
    pause.detail.frozenMs = Math.max(0, Math.round(f.atMs - t0))
    // (recorded now: if the deadline comes before its job reports, the answer says it is frozen)
    this.ctx.d.pauses.update(row.id, pause.seq, { detail: pause.detail })
    return f
  }

  private planOne(row: SessionRow, deadlineMs: number, overflow: 'frozen' | 'disk'): PlannedDump {
    const rate = this.rateOf(row.server)
    const memory = this.ctx.d.meter.get(row.id)?.memory || null
    return planDumps([{ id: row.id, server: row.server, memoryBytes: memory, lastUsedMs: null }], () => rate, deadlineMs, overflow)[0] ?? {
      id: row.id,
      server: row.server,
      order: 0,
      estimateMs: estimateMs(memory, rate),
      startsAtMs: 0,
      budgetMs: Math.max(500, deadlineMs - DISK_MS),
      fits: false,
    }
  }

  /** What the planner knows of a server's dumps. */
  rateOf(server: string): ServerRate & { slots: number } {
    const k = this.ctx.d.checkpoints.known(server)
    return { memory: k?.available ?? true, mibps: k?.dumpMiBps ?? null, overheadMs: k?.overheadMs ?? null, slots: this.ctx.d.dumpsAtOnce() }
  }

  /** What the server needs to check the estimate against the memory it finds (the planner's defaults when nothing was measured). */
  private rateOptions(server: string): string[] {
    const r = this.rateOf(server)
    return [`rate=${Math.max(1, Math.floor(r.mibps ?? DEFAULT_MIBPS))}`, `overhead=${Math.round(r.overheadMs ?? DEFAULT_OVERHEAD_MS)}`, `slots=${r.slots}`]
  }

  /** The job's stages: frozen (paused, not durable yet), stopped MODE, a dump's figures. */
  private onLine(id: string, pause: PauseRow, l: JobLine, w: Work, t0: number, progress: ReturnType<typeof progressOf>, name: string, dump: DumpProgress): void {
    const d = this.ctx.d
    if (l.kind === 'fallback') {
      pause.fallback = l.text
      d.pauses.update(id, pause.seq, { fallback: l.text })
      return
    }
    // the memory dump: what it is about to write, what it wrote so far, what it wrote (dump-progress.ts)
    if (dump.see(l)) return
    if (l.kind === 'metric' && l.name === 'dump' && l.values.length >= 2) {
      d.checkpoints.recordDump(pause.server, l.values[0]!, l.values[1]!)
      return
    }
    if (l.kind !== 'stage') return
    if (l.stage === 'frozen') {
      // (frozen already by its server's batch: that moment is the one that counts)
      if (typeof pause.detail.frozenMs !== 'number') pause.detail.frozenMs = msSince(t0)
      progress.stage('pause', `${name} is frozen with its files durable${pause.requested === 'memory' ? '; writing its memory' : ''}`)
      this.paused(id, pause, 'frozen', w, t0)
    } else if (l.stage === 'stopped') {
      const mode = isPauseMode(l.arg) ? l.arg : pause.requested
      this.paused(id, pause, mode, w, t0)
    }
  }

  /** The session no longer runs: paused in MODE (not durable yet); the answer without --wait. */
  private paused(id: string, pause: PauseRow, mode: PauseMode, w: Work, t0: number): void {
    try {
      this.markPaused(id, pause, mode)
      w.stopped.resolve(this.result(pause, mode, false, t0))
    } catch (e) {
      w.stopped.reject(e)
    }
  }

  markPaused(id: string, pause: PauseRow, mode: PauseMode): void {
    const d = this.ctx.d
    pause.mode = mode
    pause.status = 'paused'
    d.pauses.update(id, pause.seq, { mode, status: 'paused', fallback: pause.fallback, detail: pause.detail })
    const cur = d.sessionsRepo.get(id)
    if (cur?.state === 'paused' && cur.mode !== mode) {
      d.lifecycle.amend(id, { in: ['paused'], patch: { mode }, kind: 'pause-mode', detail: { snapshot: shownName(pause), mode } })
      return
    }
    if (cur?.state !== 'pausing') return
    d.lifecycle.transition(id, {
      from: ['pausing'],
      to: 'paused',
      verb: 'pause',
      patch: { mode, durable: false },
      detail: { snapshot: shownName(pause), mode, fallback: pause.fallback },
    })
  }

  result(pause: PauseRow, mode: PauseMode, durable: boolean, t0: number): Paused {
    const r: Paused = { paused: true, mode, durable, snapshot: shownName(pause), ms: msSince(t0) }
    if (pause.fallback) r.fallback = pause.fallback
    if (typeof pause.detail.frozenMs === 'number') r.frozenMs = pause.detail.frozenMs
    if (pause.detail.pending === 'memory') r.pending = 'memory'
    return r
  }

  /** Applies a pause job's outcome: durable, frozen with its memory still to write, or failed (by the engine's truth). */
  async finish(id: string, pause: PauseRow, o: JobOutcome, w: Work | undefined, t0: number): Promise<PauseResult> {
    const d = this.ctx.d
    const name = d.sessionsRepo.get(id)?.name ?? id
    if (!o.followed) {
      throw new BerthError(
        'unreachable',
        `lost the connection to ${pause.server} while pausing ${name}; the pause goes on there and Berth confirms it on the next contact (${o.reason ?? 'no answer'})`,
      )
    }
    const outcome = o.rc === 0 ? pauseJobResult(o) : undefined
    if (outcome && 'value' in outcome) return this.applyOutcome(id, pause, outcome.value, o, w, t0)
    // the job failed or vanished: the engine says what is true
    const reason =
      (outcome && 'error' in outcome ? outcome.error : null) ??
      o.error ??
      (o.gone === 'lost' ? 'the server-side pause stopped without finishing' : o.gone === 'missing' ? 'the server-side pause never started' : `exit ${o.rc}`)
    return await this.settleFailed(id, pause, reason, t0, w)
  }

  private applyOutcome(id: string, pause: PauseRow, r: PauseJobResult, o: JobOutcome, w: Work | undefined, t0: number): PauseResult {
    const d = this.ctx.d
    if (!pause.fallback && r.fallback) pause.fallback = r.fallback
    // a dump that failed says the server's memory pause may not work any more: it is tested again
    // (in the background), so the next pause does not try and wait for it
    if (r.memoryFailed) void d.checkpoints.ability(pause.server, { fresh: true }).catch(() => undefined)
    if (d.sessionsRepo.get(id)?.state === 'pausing' || d.sessionsRepo.get(id)?.mode !== r.mode) this.markPaused(id, pause, r.mode)
    const stages = o.stages
    if (r.pending === 'memory') {
      // frozen, its files durable; the memory is written later (reconcile completes it)
      pause.detail = { ...pause.detail, pending: 'memory', stages, notes: o.notes, pendingSince: nowIso(), ...(r.memoryFailed ? { completeFailed: pause.fallback } : {}) }
      d.pauses.update(id, pause.seq, { status: 'paused', mode: 'frozen', fallback: pause.fallback, detail: pause.detail })
      d.lifecycle.note(id, 'pause-pending', { snapshot: shownName(pause), reason: pause.fallback })
      const result = this.result(pause, 'frozen', false, t0)
      w?.stopped.resolve(result)
      return result
    }
    const durableAt = nowIso()
    Object.assign(pause, { status: 'durable', mode: r.mode, checkpoint: r.checkpoint ?? null, image: r.image ?? null, bytes: r.bytes ?? 0, durableAt } satisfies Partial<PauseRow>)
    pause.detail = { ...pause.detail, layout: r.layout || null, pending: null, stages, notes: o.notes }
    d.pauses.update(id, pause.seq, {
      status: 'durable',
      mode: r.mode,
      checkpoint: pause.checkpoint,
      image: pause.image,
      bytes: pause.bytes,
      fallback: pause.fallback,
      durableAt,
      detail: pause.detail,
    })
    // committed with synchronous=FULL before anyone hears "durable"
    const row = d.lifecycle.amend(id, {
      in: ['paused'],
      patch: { durable: true, mode: r.mode },
      kind: 'pause-durable',
      detail: { snapshot: shownName(pause), mode: r.mode, bytes: pause.bytes, stages, core: pause.detail.core, notes: o.notes.length ? o.notes : undefined, ms: msSince(t0) },
    })
    if (row) d.bus.signal('pause.durable', { session: row, pause })
    void d.checkpoints.runner(pause.server).forget([pause.job])
    const result = this.result(pause, r.mode, true, t0)
    w?.stopped.resolve(result)
    return result
  }

  /** A job that failed or vanished: the engine says what is true (running again, paused on disk, or gone). */
  async settleFailed(id: string, pause: PauseRow, reason: string, t0: number, w?: Work): Promise<PauseResult> {
    const d = this.ctx.d
    const engine = d.engines.get(pause.server)
    const info = await inspectContainer(engine, pause.containerId)
    const row = d.sessionsRepo.get(id)!
    d.pauses.update(id, pause.seq, { status: 'failed', failure: reason })
    if (info?.State.Paused) await engine.docker.getContainer(pause.containerId).unpause().catch(() => undefined)
    if (row.state === 'paused' && info && (info.State.Running || info.State.Paused)) {
      // reported paused, then undone on the server: the log shows it coming back
      d.lifecycle.transition(id, { from: ['paused'], to: 'resuming', verb: 'pause', detail: { outcome: 'the pause was undone', reason } })
    }
    const from = d.sessionsRepo.get(id)!.state === 'paused' ? (['paused'] as const) : (['pausing', 'resuming'] as const)
    if (info && (info.State.Running || info.State.Paused)) {
      d.lifecycle.transition(id, {
        from: [...from],
        to: 'running',
        verb: 'pause',
        patch: { mode: null, pausedBy: null, durable: false },
        detail: { outcome: 'the pause did not happen; the session kept running', reason },
      })
      throw new BerthError('checkpoint', `could not pause ${row.name}: ${reason}; it keeps running`)
    }
    if (!info) {
      d.lifecycle.transition(id, { from: [...from], to: 'failed', verb: 'pause', patch: { failure: `the container is gone: ${reason}` } })
      throw new BerthError('engine', `could not pause ${row.name}: ${reason}; its container is gone`)
    }
    // stopped without a complete snapshot: its files are intact, so it is paused on disk
    const verified = pause.requested === 'memory' ? await d.checkpoints.verify(pause.server, pause.containerId, pause.snapshot).catch(() => null) : null
    const mode: PauseMode = verified ? 'memory' : 'disk'
    pause.fallback = verified ? pause.fallback : `${reason}; the session stopped, so it resumes from its files`
    if (row.state === 'pausing' || row.mode !== mode) this.markPaused(id, pause, mode)
    else d.pauses.update(id, pause.seq, { mode, fallback: pause.fallback })
    if (verified) pause.checkpoint = pause.snapshot
    await d.checkpoints.runner(pause.server).fields(['sync', pause.containerId], 'syncing the session to disk')
    pause.status = 'durable'
    d.pauses.update(id, pause.seq, { status: 'durable', checkpoint: pause.checkpoint, durableAt: nowIso(), failure: reason })
    d.lifecycle.amend(id, { in: ['paused'], patch: { durable: true }, kind: 'pause-durable', detail: { snapshot: shownName(pause), mode, after: reason } })
    const result = this.result(pause, mode, true, t0)
    w?.stopped.resolve(result)
    return result
  }
}
