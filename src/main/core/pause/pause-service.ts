// Pause and resume: the verbs, their deadlines, and the plan that lets every session before the lid
// closes be frozen with its files durable at once, then have its memory written in turn. The
// server-side part of each runs as a detached job on the server (engines/server-script/sh/pause.sh);
// pausing.ts, resuming.ts and reconciling.ts follow those jobs and record what happened through the
// Lifecycle (compare-and-set + events log).
import type { PauseAllResult, PauseResult, ResumeResult } from '../../../shared/contract'
import { BerthError, oneSentence, toErrorBody, type ErrorBody } from '../../../shared/errors'
import type { Checkpoints } from '../checkpoints/checkpoints'
import { within } from '../deadline'
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'
import { PauseArtefacts } from './artefacts'
import { LastUsed } from './last-used'
import { stateError } from '../sessions/lifecycle'
import { msSince, type PauseContext, type PauseServiceDeps } from './pause-context'
import { planDumps, type PlannedDump } from './pause-planner'
import { nextTurn, Pausing, type PauseRequest } from './pausing'
import { Reconciling } from './reconciling'
import { Resuming, type ResumeCause } from './resuming'
import { SessionWork } from './session-work'
import { resumeInWakeOrder } from './wake-order'
import { FreezeBatch } from './freeze-batch'
import { atDeadline } from './deadline-answer'
import { freezeAllArgs, parseFreezeAll, type FreezeMember } from '../engines/server-script/freeze-all'
import { exitWords } from '../engines/engine'
import { parseFields } from '../engines/server-script/job-protocol'

export type { PauseRequest } from './pausing'
export type { ResumeCause } from './resuming'
export type { PauseServiceDeps } from './pause-context'

/** What other domains call in-process (the ssh gateway resumes on connect, move pauses first...). */
export interface PauseApi {
  pause(ref: string, req?: PauseRequest): Promise<PauseResult>
  pauseAll(req?: PauseRequest & { filter?: (row: SessionRow) => boolean }): Promise<PauseAllResult>
  resume(ref: string, opts?: { cause?: ResumeCause; op?: string | undefined }): Promise<ResumeResult>
  /** Resumes several sessions at once in wake order (wake-order.ts): the one the user looks at first. */
  resumeMany(ids: string[], opts?: { cause?: ResumeCause }): Promise<Map<string, PromiseSettledResult<ResumeResult>>>
  /** Resumes a session paused by idleness or the sleep policy; null when it is not paused that way. */
  resumeIfAutoPaused(ref: string, cause: ResumeCause): Promise<ResumeResult | null>
  /** Waits until no pause or resume of the session is under way in this process. */
  settled(sessionId: string): Promise<void>
}

/** How long `pause --all` waits for a server to answer before it reports that server's sessions as not paused. */
export const PAUSE_ALL_REACH_MS = 3_000
/** A --wait answer leaves this much of the deadline for itself to cross the door. */
const ANSWER_MARGIN_MS = 100
/**
 * pause --all answers for many sessions at once: on a busy laptop its timers fire late and the
 * answers are gathered after them, so it keeps this much more of the deadline in hand.
 */
const ALL_ANSWER_MARGIN_MS = 400

export class PauseService implements PauseApi {
  private readonly ctx: PauseContext
  private readonly pausing: Pausing
  private readonly resuming: Resuming
  private readonly reconciling: Reconciling
  private readonly lastUsed: LastUsed
  /** Where pause artefacts go once nothing needs them; `artefacts.retain` keeps the ones snapshots use. */
  readonly artefacts: PauseArtefacts

  constructor(d: PauseServiceDeps) {
    this.ctx = { d, work: new SessionWork(), reconnectMs: 90_000, closing: false }
    this.artefacts = new PauseArtefacts({
      engines: d.engines,
      checkpoints: d.checkpoints,
      pauses: d.pauses,
      sessions: d.sessionsRepo,
      lifecycle: d.lifecycle,
      busy: (id) => this.ctx.work.has(id),
    })
    this.pausing = new Pausing(this.ctx)
    this.resuming = new Resuming(this.ctx, this.artefacts)
    this.reconciling = new Reconciling(this.ctx, this.pausing, this.resuming)
    this.lastUsed = new LastUsed(d.bus)
  }

  /** How long a pause or resume keeps trying to reach its server again after the connection dropped. */
  set reconnectMs(ms: number) {
    this.ctx.reconnectMs = ms
  }

  /** The checkpoint primitive (create, verify, locate, restore, remove), for move, fork and rewind. */
  get checkpoints(): Checkpoints {
    return this.ctx.d.checkpoints
  }

  /** The newest pause of a session: its mode, snapshot, checkpoint, image and server. */
  latestPause(sessionId: string): PauseRow | undefined {
    return this.ctx.d.pauses.latest(sessionId)
  }

  /**
   * A paused session moved (issue 4): its latest pause's checkpoint now lives in `containerId` on
   * `server`, under the same name, so resume and clean-up look there.
   */
  movedTo(sessionId: string, server: string, containerId: string): void {
    const p = this.ctx.d.pauses.latest(sessionId)
    if (p) this.ctx.d.pauses.relocate(sessionId, p.seq, server, containerId)
  }

  /** How a pause's checkpoint is named for the user (the snapshots feature lists it under that name). */
  nameCheckpointsWith(name: (row: SessionRow) => string): void {
    this.ctx.listedName = name
  }

  /** Berth is stopping: work in flight stops waiting for its servers (their jobs go on there). */
  close(): void {
    this.ctx.closing = true
    this.lastUsed.stop()
  }

  // --------------------------------------------------------------------------------------- pause --

  async pause(ref: string, req: PauseRequest = {}): Promise<PauseResult> {
    const t0 = req.startedAt ?? performance.now()
    const d = this.ctx.d
    const work = this.ctx.work
    let row = d.sessions.resolve(ref)
    const current = work.get(row.id)
    if (current) {
      if (current.kind === 'pause') {
        await (req.wait ? current.done.promise : current.stopped.promise).catch(() => undefined)
        row = d.sessions.resolve(row.id)
        if (row.state === 'paused') return { paused: false }
      } else {
        await current.done.promise.catch(() => undefined)
        row = d.sessions.resolve(row.id)
      }
    }
    if (row.state === 'pausing' || row.state === 'resuming' || (row.state === 'paused' && !row.durable)) {
      // asked to wait for it: a frozen session's memory is written now
      await this.reconciling.reconcile(row, { complete: false })
      row = d.sessions.resolve(row.id)
    }
    if (row.state === 'paused') {
      if (req.wait && !row.durable) {
        const pending = d.pauses.latest(row.id)?.detail.pending === 'memory'
        throw new BerthError('checkpoint', pending ? `session ${row.name} is frozen; its memory is written once the window allows (it stays frozen until then)` : `session ${row.name} is paused but Berth could not make its pause durable yet`)
      }
      return { paused: false }
    }
    if (row.state !== 'running') throw stateError(row, 'pause')
    // work that began while this call waited (a snapshot's hold) goes first
    if (work.has(row.id)) return await this.pause(row.id, req)
    // every pause has a deadline, the server's job and this answer alike: a single pause without
    // one gets the setting's (else 120 s), so a CRIU that never returns holds nobody for long
    const deadlineMs = req.deadlineMs ?? d.pauseDeadlineMs()
    const w = work.begin(row.id, 'pause')
    void this.pausing.run(row, { ...req, deadlineMs }, w, t0).then(
      (r) => w.done.resolve(r),
      (e) => {
        w.stopped.reject(e)
        w.done.reject(e)
      },
    )
    void w.done.promise.catch(() => undefined).finally(() => work.end(row.id, w))
    if (!req.wait) return await w.stopped.promise
    // the deadline holds whatever the server does: past it, the session's state as it stands
    const id = row.id
    return (await within(w.done.promise as Promise<PauseResult>, Math.max(0, deadlineMs - msSince(t0) - ANSWER_MARGIN_MS), () => this.stateAtDeadline(id, t0))) as PauseResult
  }

  /** A pause that was not over by its deadline, as it stands: frozen (memory kept, not durable yet), or still running. */
  private stateAtDeadline(id: string, t0: number): PauseResult {
    const d = this.ctx.d
    const row = d.sessionsRepo.get(id)!
    const pause = d.pauses.latest(id)
    const at = atDeadline(row, pause)
    if (at === 'frozen-by-batch' && pause) {
      // frozen with its files durable by its server's batch; its job (which records it paused and
      // writes its memory) had not reported yet, and goes on
      const r = this.pausing.result(pause, 'frozen', false, t0)
      if (pause.requested === 'memory') r.pending = 'memory'
      r.fallback ??= `its server froze it with its files durable; its ${pause.requested === 'memory' ? 'memory is written' : 'pause is completed'} once its job there reports (it had not by the ${Math.round((pause.detail.deadlineMs as number) / 100) / 10} s deadline); it stays frozen meanwhile`
      return r
    }
    if (at === 'paused' && pause) {
      const r = this.pausing.result(pause, row.mode ?? 'frozen', row.durable, t0)
      if (!row.durable) {
        r.pending = 'memory'
        r.fallback ??= `its memory was still being written when the ${Math.round((pause.detail.deadlineMs as number) / 100) / 10} s deadline came; it stays frozen meanwhile`
      }
      return r
    }
    throw new BerthError('unreachable', `session ${row.name} did not pause within its deadline (${row.server} did not answer in time); it keeps running there as far as Berth knows`)
  }

  async pauseAll(req: PauseRequest & { filter?: (row: SessionRow) => boolean } = {}): Promise<PauseAllResult> {
    const t0 = performance.now()
    const d = this.ctx.d
    const deadlineMs = req.deadlineMs ?? (await d.lidCloseDeadlineMs())
    const rows = d.sessionsRepo.inStates(['running', 'pausing']).filter((r) => !req.filter || req.filter(r))
    // the lid-close path: a server that does not answer soon holds up no one (its sessions keep running there)
    const reachMs = Math.min(PAUSE_ALL_REACH_MS, deadlineMs)
    const reach = new Map<string, Promise<ErrorBody | null>>()
    for (const s of new Set(rows.map((r) => r.server))) reach.set(s, this.reachableWithin(s, reachMs))
    // every dump planned up front: per server as many at once as dumpsAtOnce says, servers side by side
    const plans = new Map(this.plan(rows, deadlineMs, req.overflow ?? 'frozen').map((p) => [p.id, p]))
    const turns = new Map(rows.map((r) => [r.id, '']))
    for (const p of [...plans.values()].sort((a, b) => a.order - b.order)) turns.set(p.id, nextTurn())
    // stage one, per server: its sessions frozen together, their files made durable by one sync
    const batches = new Map([...reach.keys()].map((s) => [s, this.freezeBatch(s, rows.filter((r) => r.server === s).map((r) => r.id), deadlineMs)]))
    const results = await Promise.all(
      rows.map(async (r) => {
        const base = { id: r.id, name: r.name, server: r.server }
        const batch = batches.get(r.server)!
        const unreachable = await reach.get(r.server)!
        if (unreachable) {
          batch.leave(r.id)
          return { ...base, error: { ...unreachable, message: `${unreachable.message}: ${r.name} was not paused and keeps running there` } }
        }
        try {
          // its times count from this call's start (frozen, durable), and so does its deadline
          const until = Math.max(msSince(t0) + 1000, deadlineMs - ALL_ANSWER_MARGIN_MS)
          const req1 = { ...req, deadlineMs: until, startedAt: t0, overflow: req.overflow ?? 'frozen', plan: plans.get(r.id), turn: turns.get(r.id) || undefined, batch }
          return { ...base, result: await this.pause(r.id, req1).finally(() => batch.leave(r.id)) }
        } catch (e) {
          return { ...base, error: toErrorBody(e) }
        }
      }),
    )
    const answers = results.map((x) => ('result' in x ? x.result : undefined))
    const paused = answers.filter((r): r is Extract<PauseResult, { paused: true }> => !!r?.paused)
    const frozen = paused.map((r) => r.frozenMs)
    const allDurable = answers.every((r) => r && (!r.paused || r.durable))
    return {
      results,
      ms: msSince(t0),
      deadlineMs,
      frozenMs: paused.length && frozen.every((f) => typeof f === 'number') ? Math.max(...(frozen as number[])) : null,
      durableMs: allDurable ? Math.max(0, ...paused.map((r) => r.ms)) : null,
    }
  }

  /**
   * The freeze of SERVER's sessions in one step. The server bounds each of its waits (ending exec
   * sessions, the joint docker pause, then one per container left) by a fifth of the deadline, within
   * [0.5 s, 1.5 s]; the core gives it three times that and a second for the connection and the sync.
   */
  private freezeBatch(server: string, sessions: string[], deadlineMs: number): FreezeBatch {
    const limitMs = Math.min(1500, Math.max(500, Math.round(deadlineMs / 5)))
    const run = async (members: FreezeMember[]) => {
      const r = await this.ctx.d.checkpoints.runner(server).run(freezeAllArgs(members, limitMs))
      if (r.code !== 0) throw new Error(parseFields(r.stdout).get('error')?.[0] ?? oneSentence(r.stderr || exitWords(r.code, r.ending)))
      return parseFreezeAll(
        r.stdout,
        members.map((m) => m.facts[0]!),
      )
    }
    return new FreezeBatch(sessions, run, limitMs * 3 + 1000)
  }

  /** The dumps a pause of ROWS within DEADLINE_MS would plan (servers that cannot dump memory have none). */
  plan(rows: SessionRow[], deadlineMs: number, overflow: 'frozen' | 'disk' = 'frozen'): PlannedDump[] {
    const d = this.ctx.d
    return planDumps(
      rows.map((r) => ({ id: r.id, server: r.server, memoryBytes: d.meter.get(r.id)?.memory || null, lastUsedMs: this.lastUsed.of(r.id) })),
      (server) => this.pausing.rateOf(server),
      deadlineMs,
      overflow,
    )
  }

  /** Null once the server's engine answers within `ms`; else why not (an error body, as a result carries it). */
  private async reachableWithin(server: string, ms: number): Promise<ErrorBody | null> {
    const ready = (async () => await this.ctx.d.engines.get(server).ready())().then(
      () => null,
      (e: unknown) => toErrorBody(e),
    )
    return await within(ready, ms, (): ErrorBody => ({ code: 'unreachable', message: `server ${server} did not answer within ${ms / 1000} s` }))
  }

  // -------------------------------------------------------------------------------------- resume --

  async resume(ref: string, opts: { cause?: ResumeCause; op?: string | undefined } = {}): Promise<ResumeResult> {
    const t0 = performance.now()
    const d = this.ctx.d
    const work = this.ctx.work
    let row = d.sessions.resolve(ref)
    const current = work.get(row.id)
    if (current) {
      await current.done.promise.catch(() => undefined)
      row = d.sessions.resolve(row.id)
      if (current.kind === 'resume' && row.state === 'running') return { resumed: false }
    }
    if (row.state === 'pausing' || row.state === 'resuming' || (row.state === 'paused' && !row.durable)) {
      await this.reconciling.reconcile(row)
      row = d.sessions.resolve(row.id)
    }
    if (row.state === 'running') return { resumed: false }
    if (row.state !== 'paused') throw stateError(row, 'resume')
    if (work.has(row.id)) return await this.resume(row.id, opts)
    const w = work.begin(row.id, 'resume')
    try {
      const r = await this.resuming.run(row, opts, t0)
      w.done.resolve(r)
      return r
    } catch (e) {
      w.done.reject(e)
      throw e
    } finally {
      work.end(row.id, w)
    }
  }

  async resumeMany(ids: string[], opts: { cause?: ResumeCause } = {}): Promise<Map<string, PromiseSettledResult<ResumeResult>>> {
    return await resumeInWakeOrder(
      ids.map((id) => ({ id, lastUsedMs: this.lastUsed.of(id) })),
      (id) => this.resume(id, opts),
    )
  }

  async resumeIfAutoPaused(ref: string, cause: ResumeCause): Promise<ResumeResult | null> {
    let row = this.ctx.d.sessions.resolve(ref)
    const current = this.ctx.work.get(row.id)
    if (current?.kind === 'pause') {
      await current.done.promise.catch(() => undefined)
      row = this.ctx.d.sessions.resolve(row.id)
    }
    if (row.state !== 'paused' && row.state !== 'pausing') return null
    if (row.pausedBy === 'user' || row.pausedBy === null) return null
    return await this.resume(row.id, { cause })
  }

  // ---------------------------------------------------------------------------------- reconcile --

  /** Brings a session that a crash or a dropped connection left mid-way to a consistent state. */
  reconcile(row: SessionRow, opts: { complete?: boolean } = {}): Promise<void> {
    return this.reconciling.reconcile(row, opts)
  }

  /** Reconciles every session of a server that is mid-way; `complete` also writes frozen sessions' memory. */
  reconcileServer(server: string, opts: { complete?: boolean } = {}): Promise<number> {
    return this.reconciling.reconcileServer(server, opts)
  }

  reconcileAll(opts: { complete?: boolean } = {}): Promise<number> {
    return this.reconciling.reconcileAll(opts)
  }

  /** Follows the lazy restores a stopped (or killed) Berth left to their end (lazy-resume.ts). */
  followLazyLeft(): void {
    this.resuming.followLazyLeft()
  }

  async settled(sessionId: string): Promise<void> {
    await this.ctx.work.settled(sessionId)
  }

  /** Runs `fn` while no pause, resume or reconciliation of the session runs; those wait for it. */
  exclusive<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    return this.ctx.work.hold(sessionId, fn)
  }

  /** True while a pause, resume, reconciliation or hold of the session runs in this process. */
  busy(sessionId: string): boolean {
    return this.ctx.work.has(sessionId)
  }

  /** Removes a pause's checkpoint and image (see PauseArtefacts). */
  async removeArtefacts(pause: PauseRow, containerGone = false): Promise<void> {
    await this.artefacts.remove(pause, containerGone)
  }
}
