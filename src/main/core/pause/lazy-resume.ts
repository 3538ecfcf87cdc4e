// A memory resume that does not wait for all memory (CRIU lazy pages, armed by the server script's
// lazy.sh around Docker's own restore). The session runs once its processes are back; the pages
// follow. Memory not yet back is never lost: the checkpoint stays whole until the server says every
// page is in, and a lazy restore that fails half way (its daemon killed or stuck past its deadline)
// has its container stopped on the server and is restored again, in full, from that checkpoint.
import { oneSentence } from '../../../shared/errors'
import type { PauseMode } from '../../../shared/models'
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'
import type { PauseArtefacts } from './artefacts'
import { resumeDirect } from './direct-resume'
import type { PauseContext } from './pause-context'

/** How a lazy restore ended on the server (lazy.sh's `lazy-wait`). */
export type LazyEnd = { done: true; ms: number } | { done: false; why: string }

export class LazyResume {
  constructor(
    private readonly ctx: PauseContext,
    private readonly artefacts: PauseArtefacts,
  ) {}

  /** Whether resumes should try lazy pages, and how long all memory may take to come back. */
  get settings(): { on: boolean; deadlineSeconds: number } {
    return this.ctx.d.lazyResume()
  }

  /** Arms the next restore of the container as a lazy one: null when armed, else why it cannot be. */
  async arm(server: string, containerId: string, checkpoint: string): Promise<string | null> {
    // the engine's own CRIU, as the memory probe found it on runc's PATH: the page server must be the
    // CRIU the restore runs (one protocol between them), and one without userfaultfd cannot serve
    const criu = this.ctx.d.checkpoints.known(server)?.criu
    if (criu && !criu.uffd) return `the CRIU or the kernel of ${server} has no userfaultfd (lazy pages), as its memory test found`
    try {
      const r = await this.ctx.d.checkpoints.runner(server).run(['lazy-arm', containerId, checkpoint, String(this.settings.deadlineSeconds), ...(criu ? [criu.path] : [])])
      if (/^armed 1$/m.test(r.stdout)) return null
      const why = /^why (.*)$/m.exec(r.stdout)?.[1] ?? /^error (.*)$/m.exec(r.stdout)?.[1] ?? oneSentence(r.stderr || `exit ${r.code}`)
      return why
    } catch (e) {
      return oneSentence((e as Error).message)
    }
  }

  /**
   * Ends a lazy restore that Docker's start did not go through with (nothing of it may linger), and
   * says why it failed when the server knows (its page server did not serve in time, say).
   */
  async disarm(server: string, containerId: string): Promise<string | null> {
    const r = await this.ctx.d.checkpoints
      .runner(server)
      .run(['lazy-stop', containerId])
      .catch(() => null)
    return (r && /^why (.*)$/m.exec(r.stdout)?.[1]) || null
  }

  /**
   * Records on the pause, before Docker's start, that a lazy restore of `containerId` may be under
   * way (null once its outcome is recorded): a Berth killed meanwhile follows it again when it
   * starts (followLeft), so its checkpoint is removed only once the server says all memory is back.
   */
  mark(sessionId: string, seq: number, containerId: string | null): void {
    const p = this.ctx.d.pauses.latest(sessionId)
    if (p?.seq !== seq) return
    const detail = { ...p.detail }
    if (containerId) detail.lazyContainer = containerId
    else delete detail.lazyContainer
    this.ctx.d.pauses.update(sessionId, seq, { detail })
  }

  /** Removes the server's record of a lazy restore that is over (its work folder under /run/berth-lazy). */
  async forget(server: string, containerId: string): Promise<void> {
    await this.ctx.d.checkpoints
      .runner(server)
      .run(['lazy-forget', containerId])
      .catch(() => undefined)
  }

  /**
   * At start-up: lazy restores a Berth that stopped (or was killed) left unfollowed. One whose
   * session runs (or failed: the server stopped it) is followed to its end as any other; one that
   * never went through is over, its checkpoint whole for the next resume.
   */
  followLeft(): void {
    const d = this.ctx.d
    for (const row of d.sessionsRepo.inStates(['running', 'failed', 'paused'])) {
      const pause = d.pauses.latest(row.id)
      const containerId = typeof pause?.detail.lazyContainer === 'string' ? pause.detail.lazyContainer : null
      if (!pause || !containerId || this.ctx.work.has(row.id)) continue
      if (row.state === 'paused') {
        this.mark(row.id, pause.seq, null)
        void this.forget(row.server, containerId)
      } else {
        this.follow(row, pause, containerId)
      }
    }
  }

  /** How the lazy restore of the container ends, waiting at most `limitSeconds` (null: not over yet). */
  async end(server: string, containerId: string, limitSeconds: number): Promise<LazyEnd | null> {
    const r = await this.ctx.d.checkpoints.runner(server).run(['lazy-wait', containerId, String(Math.ceil(limitSeconds))])
    const line = /^lazy (.*)$/m.exec(r.stdout)?.[1] ?? ''
    if (line.startsWith('done')) return { done: true, ms: Number(line.split(' ')[1] ?? 0) }
    if (line.startsWith('failed ')) return { done: false, why: line.slice('failed '.length) }
    if (line === 'none') return { done: false, why: 'the server has no record of the lazy restore' }
    if (r.code !== 0) throw new Error(oneSentence(r.stderr || `lazy-wait exit ${r.code}`))
    return null
  }

  /**
   * Follows the pages until all are in, then lets the pause's artefacts go. A failure restores the
   * session again, in full, from the checkpoint that was kept.
   */
  follow(row: SessionRow, pause: PauseRow, containerId: string): void {
    void this.followPages(row, pause, containerId).then(
      // its outcome recorded: nothing of it is left on the server, nor to follow at the next start
      () => {
        this.mark(row.id, pause.seq, null)
        return this.forget(row.server, containerId)
      },
      (e: Error) => this.ctx.d.lifecycle.note(row.id, 'memory-back-unknown', { reason: oneSentence(e.message), outcome: 'the checkpoint is kept' }),
    )
  }

  private async followPages(row: SessionRow, pause: PauseRow, containerId: string): Promise<void> {
    const d = this.ctx.d
    const limit = this.settings.deadlineSeconds + 30
    let end: LazyEnd | null = null
    for (let i = 0; i < 3 && !end && !this.ctx.closing; i++) end = await this.end(row.server, containerId, limit)
    if (!end) {
      if (this.ctx.closing) throw new Error('Berth stopped before all memory was back') // followed again at its next start
      d.lifecycle.note(row.id, 'memory-back-unknown', { reason: 'the lazy restore did not end in time', outcome: 'the checkpoint is kept' })
      return
    }
    if (end.done) {
      d.lifecycle.note(row.id, 'memory-back', { ms: end.ms, lazy: true })
      this.artefacts.removeSoon(pause, 0)
      return
    }
    // restarting while it is brought back: the container the server stopped is expected down (the
    // engine watch marks a running session whose container stopped as failed, and may have already)
    try {
      d.lifecycle.transition(row.id, { from: ['running', 'failed'], to: 'restarting', verb: 'resume', kind: 'lazy-restore-failed', detail: { reason: end.why } })
    } catch {
      return // someone else moved it meanwhile (a pause, a finish)
    }
    const mode: PauseMode | null = await resumeDirect(d.engines, d.checkpoints, row.server, containerId, 'memory', pause.checkpoint ?? '-', pause.detail.layout === 'split').catch(
      () => null,
    )
    const now = d.sessionsRepo.get(row.id)!
    if (mode === 'memory') {
      await d.sessions.runAfterStart(now, d.engines.get(row.server), containerId, { kept: true }).catch(() => undefined)
      d.lifecycle.transition(row.id, { from: ['restarting'], to: 'running', verb: 'resume', patch: { failure: null }, detail: { restored: 'memory', outcome: 'restored again, in full' } })
      d.lifecycle.note(row.id, 'memory-back', { lazy: false, outcome: 'restored again, in full, from the checkpoint' })
      this.artefacts.removeSoon(pause)
    } else {
      // the checkpoint is whole: the session is paused with its memory, to be resumed again
      d.lifecycle.transition(row.id, { from: ['restarting'], to: 'paused', verb: 'resume', patch: { mode: 'memory' }, detail: { outcome: 'the full restore did not start; still paused with its memory' } })
      d.lifecycle.note(row.id, 'memory-back-unknown', { reason: 'the full restore after the lazy one failed did not start', outcome: 'the checkpoint is kept' })
    }
  }
}
