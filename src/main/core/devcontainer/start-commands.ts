// A devcontainer's postCreateCommand (once, at create) and postStartCommand (every boot of the
// session's container: create, resume from disk, restart, a move or fork without memory; never when
// a memory or frozen resume brought its processes back). Each command is a detached job
// (`berth jobs` lists it, `berth logs` reads it), followed for a bounded time into the session's
// events log with its state and last lines of output.
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import { quoteCommand } from '../jobs/job-text'
import type { JobsService } from '../jobs/jobs-service'
import type { ProgressReporter } from '../progress'
import type { Lifecycle } from '../sessions/lifecycle'
import type { SessionService, StartKind } from '../sessions/session-service'
import { shapeOf, type StartCommand } from '../sessions/session-shape'
import type { SessionsRepo, SessionRow } from '../store/sessions-repo'

/** How long create waits for postCreateCommand (the specification's tools wait for it too). */
export const POST_CREATE_MS = 10 * 60_000
/** How long a postStartCommand is followed: long enough for its first lines; a service keeps running. */
export const POST_START_FOLLOW_MS = 15_000
const POLL_MS = 1_000
const LINES = 20

type Kind = 'post-create' | 'post-start'

export class StartCommands {
  constructor(
    private readonly sessions: SessionService,
    private readonly repo: SessionsRepo,
    private readonly jobs: JobsService,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** The start hook: postStartCommand on every boot but create's (create runs it after postCreateCommand). */
  async onStart(row: SessionRow, containerId: string, start: StartKind): Promise<void> {
    if (start.kept || row.state === 'creating') return
    const commands = shapeOf(row.options).dev?.postStart ?? []
    if (!commands.length) return
    const launched = await this.launchAll(row, containerId, 'post-start', commands)
    for (const l of launched) void this.follow(row, containerId, 'post-start', l, POST_START_FOLLOW_MS)
  }

  /** At create: postCreateCommand to its end (bounded), then this first start's postStartCommand. */
  async afterCreate(sessionId: string, postCreate: StartCommand[], progress: ProgressReporter): Promise<void> {
    const row = this.sessions.resolve(sessionId)
    if (!row.containerId) return
    const containerId = row.containerId
    if (postCreate.length) {
      progress.stage('post-create', `running postCreateCommand in ${row.name}`)
      const launched = await this.launchAll(row, containerId, 'post-create', postCreate)
      const ended = await Promise.all(launched.map((l) => this.follow(row, containerId, 'post-create', l, POST_CREATE_MS)))
      const failed = postCreate.length - launched.length + ended.filter((e) => e.state !== 'exited' || e.exitCode !== 0).length
      progress.done('post-create', failed ? `postCreateCommand did not succeed in ${row.name} (berth session events ${row.name})` : `postCreateCommand done in ${row.name}`)
    }
    const commands = shapeOf(row.options).dev?.postStart ?? []
    if (!commands.length) return
    const launched = await this.launchAll(row, containerId, 'post-start', commands)
    for (const l of launched) void this.follow(row, containerId, 'post-start', l, POST_START_FOLLOW_MS)
  }

  private async launchAll(row: SessionRow, containerId: string, kind: Kind, commands: StartCommand[]): Promise<Array<{ job: string; command: string; name?: string }>> {
    const out: Array<{ job: string; command: string; name?: string }> = []
    for (const c of commands) {
      const command = quoteCommand(c.argv).slice(0, 500)
      try {
        const job = await this.jobs.launch(row, containerId, c.argv)
        this.lifecycle.note(row.id, `${kind}-started`, { job, command, ...(c.name ? { name: c.name } : {}) })
        out.push({ job, command, ...(c.name ? { name: c.name } : {}) })
      } catch (e) {
        this.lifecycle.note(row.id, `${kind}-failed`, { command, reason: oneSentence(reasonOf(e)) })
      }
    }
    return out
  }

  /**
   * Follows a job until it ends or `ms` pass, while the session keeps this container running (a
   * pause or a move ends the following: nothing is asked of a container on its way out), then
   * writes its state and last lines to the events log.
   */
  private async follow(row: SessionRow, containerId: string, kind: Kind, l: { job: string; command: string; name?: string }, ms: number): Promise<{ state: string; exitCode: number | null }> {
    const until = Date.now() + ms
    let seen: { state: string; exitCode: number | null; lines: string[] } = { state: 'running', exitCode: null, lines: [] }
    let stopped: string | null = null
    for (;;) {
      const now = this.repo.get(row.id)
      if (!now || now.containerId !== containerId || !['running', 'creating', 'resuming'].includes(now.state)) {
        stopped = now ? `the session is ${now.state}` : 'the session is gone'
        break
      }
      try {
        seen = await this.jobs.peek(row, containerId, l.job, LINES)
      } catch (e) {
        stopped = e instanceof BerthError ? e.message : reasonOf(e)
        break
      }
      if (seen.state !== 'running' || Date.now() >= until) break
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
    const detail: Record<string, unknown> = { job: l.job, command: l.command, state: seen.state, exitCode: seen.exitCode, lines: seen.lines }
    if (l.name) detail.name = l.name
    if (stopped) detail.followed = `until ${oneSentence(stopped)}`
    else if (seen.state === 'running') detail.followed = `for ${Math.round(ms / 1000)} s; it keeps running (berth logs ${row.name} ${l.job})`
    this.lifecycle.note(row.id, kind, detail)
    return seen
  }
}
