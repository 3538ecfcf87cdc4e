// A route id names a session for its whole life; where the session runs changes (pause, resume,
// restart, a move to another server). Every connection, channel and preview request resolves the
// route again here, so a bookmarked ssh line or preview link always reaches the session as it is now.
import type { Settings } from '../../../shared/settings'
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { EngineRegistry } from '../engines/engine-registry'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'

export interface Reached {
  row: SessionRow
  engine: Engine
  containerId: string
}

/** Resumes a paused session in-process (the pause/resume domain plugs it in) and returns the row after. */
export type Resumer = (row: SessionRow) => Promise<SessionRow>

const WAIT_STATES = new Set(['creating', 'pausing', 'resuming', 'moving', 'restarting'])
const POLL_MS = 200
const WAIT_LIMIT_MS = 15 * 60_000

export class RouteTable {
  private resumer: Resumer | undefined
  private readonly resuming = new Map<string, Promise<SessionRow>>()

  constructor(
    private readonly sessions: SessionsRepo,
    private readonly engines: EngineRegistry,
    private readonly settings: () => Settings,
  ) {}

  /** Lets a connection resume a session that was paused (wired by the pause/resume domain). */
  setResumer(resumer: Resumer | undefined): void {
    this.resumer = resumer
  }

  /** The session whose route id this is (exactly: not a name or an id), in any state. */
  lookup(route: string): SessionRow | undefined {
    const row = this.sessions.find(route)
    return row && row.route === route ? row : undefined
  }

  get(sessionId: string): SessionRow | undefined {
    return this.sessions.get(sessionId)
  }

  /**
   * The session's running container, now. Waits out a transition under way, resumes a session that
   * was paused automatically, and refuses (BerthError with a sentence for the user) otherwise.
   * `tell` gets what a person should see while they wait (an ssh client's stderr).
   */
  async reach(sessionId: string, tell: (line: string) => void = () => undefined, cancelled: () => boolean = () => false): Promise<Reached> {
    const deadline = Date.now() + WAIT_LIMIT_MS
    let told = ''
    const say = (line: string) => {
      if (line !== told) tell(line)
      told = line
    }
    for (;;) {
      if (cancelled()) throw new BerthError('conflict', 'the connection closed')
      const row = this.sessions.get(sessionId)
      if (!row) throw new BerthError('not_found', 'session not found')
      if (row.state === 'running' && row.containerId) {
        return { row, engine: this.engines.get(row.server), containerId: row.containerId }
      }
      if (row.state === 'finished' || row.state === 'finishing') throw new BerthError('refused', `session finished: ${row.route} can no longer be reached`)
      if (row.state === 'failed') throw new BerthError('refused', `session ${row.route} failed${row.failure ? `: ${row.failure}` : ''}`)
      if (row.state === 'paused') {
        await this.resume(row, say)
        continue
      }
      if (!WAIT_STATES.has(row.state) || Date.now() > deadline) {
        throw new BerthError('conflict', `session ${row.route} is ${row.state}; try again when it is running`)
      }
      say(`session ${row.route} is ${row.state}; waiting for it to run`)
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
  }

  private async resume(row: SessionRow, say: (line: string) => void): Promise<void> {
    const byUser = row.pausedBy === 'user' || row.pausedBy === null
    if (byUser && !this.settings().resumeUserPausedOnConnect) {
      throw new BerthError(
        'refused',
        `session ${row.route} was paused by you and stays paused; resume it with: berth resume ${row.route} ` +
          `(or let connections resume it: berth settings set resumeUserPausedOnConnect true)`,
      )
    }
    if (!this.resumer) throw new BerthError('refused', `session ${row.route} is paused and this Berth cannot resume it on connect; run: berth resume ${row.route}`)
    say(`resuming session ${row.route} (${byUser ? 'paused by you' : 'paused automatically'}) ...`)
    let p = this.resuming.get(row.id)
    if (!p) {
      p = this.resumer(row).finally(() => this.resuming.delete(row.id))
      this.resuming.set(row.id, p)
    }
    try {
      const after = await p
      if (after.state === 'running') say(`session ${row.route} resumed${after.mode ? ` (${after.mode})` : ''}`)
    } catch (e) {
      // another caller may have resumed it meanwhile: the next pass of reach() looks again
      if (!(e instanceof BerthError && e.code === 'conflict')) throw e
    }
  }
}
