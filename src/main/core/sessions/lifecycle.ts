// The session state machine, in one place. Every transition is a compare-and-set on the session's
// row plus an entry in the events log, in one SQLite transaction (synchronous=FULL), so two callers
// can never drive a session into two transitions at once and a crash can always be reconciled.
import type { SessionState } from '../../../shared/models'
import { BerthError } from '../../../shared/errors'
import type { Db } from '../store/database'
import { nowIso } from '../store/database'
import type { EventsRepo } from '../store/events-repo'
import type { SessionPatch, SessionRow, SessionsRepo } from '../store/sessions-repo'

//    creating -> running <-> pausing -> paused -> resuming -> running
//    paused -> moving -> paused | resuming            running|paused|failed -> restarting -> running
//    running|paused|failed -> finishing -> finished   any transition can end in failed
//    (restarting also carries a rewind: the container is made again from a snapshot)
export const NEXT: Readonly<Record<SessionState, readonly SessionState[]>> = {
  creating: ['running', 'failed'],
  running: ['pausing', 'restarting', 'finishing', 'failed'],
  pausing: ['paused', 'running', 'failed'],
  paused: ['resuming', 'moving', 'restarting', 'finishing', 'failed'],
  resuming: ['running', 'paused', 'failed'],
  moving: ['paused', 'resuming', 'failed'],
  restarting: ['running', 'paused', 'failed'],
  finishing: ['finished', 'failed'],
  finished: [],
  failed: ['resuming', 'restarting', 'finishing', 'running', 'paused'],
}

/** States in which work is under way; a crash can leave a session in one of them. */
export const TRANSIENT: readonly SessionState[] = ['creating', 'pausing', 'resuming', 'moving', 'restarting', 'finishing']
export const LIVE: readonly SessionState[] = ['creating', 'running', 'pausing', 'paused', 'resuming', 'moving', 'restarting']

export interface TransitionRequest {
  /** The states the caller expects the session to be in. */
  from: readonly SessionState[]
  to: SessionState
  /** A verb for the error when the session is elsewhere ("pause", "resume"...). */
  verb: string
  patch?: SessionPatch
  detail?: Record<string, unknown>
  /** The event's kind; defaults to "<from>-><to>" */
  kind?: string
}

export class Lifecycle {
  constructor(
    private readonly db: Db,
    private readonly sessions: SessionsRepo,
    private readonly events: EventsRepo,
    private readonly changed: (s: SessionRow) => void,
  ) {}

  transition(id: string, req: TransitionRequest): SessionRow {
    const result = this.db.transaction((): SessionRow => {
      const cur = this.sessions.get(id)
      if (!cur) throw new BerthError('not_found', `session not found: ${id}`)
      if (!req.from.includes(cur.state)) throw stateError(cur, req.verb)
      if (!NEXT[cur.state].includes(req.to)) {
        throw new BerthError('internal', `the state machine does not allow ${cur.state} -> ${req.to}`)
      }
      const at = nowIso()
      const changed = this.sessions.compareAndSet(id, [cur.state], req.to, req.patch ?? {}, at, cur.version)
      if (changed !== 1) throw stateError(this.sessions.get(id) ?? cur, req.verb)
      this.events.append({
        sessionId: id,
        kind: req.kind ?? 'transition',
        from: cur.state,
        to: req.to,
        detail: { verb: req.verb, ...(req.detail ?? {}) },
      })
      return this.sessions.get(id)!
    }).immediate()
    this.changed(result)
    return result
  }

  /**
   * Changes a session's fields without changing its state (a pause becoming durable), as a
   * compare-and-set on the state plus an events-log entry, in one transaction.
   */
  amend(id: string, req: { in: readonly SessionState[]; patch: SessionPatch; kind: string; detail?: Record<string, unknown> }): SessionRow | undefined {
    const result = this.db.transaction((): SessionRow | undefined => {
      const cur = this.sessions.get(id)
      if (!cur || !req.in.includes(cur.state)) return undefined
      const changed = this.sessions.compareAndSet(id, [cur.state], cur.state, req.patch, nowIso(), cur.version)
      if (changed !== 1) return undefined
      this.events.append({ sessionId: id, kind: req.kind, detail: req.detail ?? {} })
      return this.sessions.get(id)!
    }).immediate()
    if (result) this.changed(result)
    return result
  }

  /** Records something that happened to a session without changing its state. */
  note(id: string, kind: string, detail: Record<string, unknown> = {}): void {
    this.events.append({ sessionId: id, kind, detail })
  }
}

/** The one refusal of work on a session that finished. */
export function sessionFinished(s: Pick<SessionRow, 'name'>, verb: string): BerthError {
  return new BerthError('refused', `cannot ${verb} session ${s.name}: the session finished`)
}

/** Why a session cannot take this verb in its state: finished, or busy with something else. */
export function stateError(s: SessionRow, verb: string): BerthError {
  if (s.state === 'finished') return sessionFinished(s, verb)
  return new BerthError('conflict', `cannot ${verb} session ${s.name}: it is ${s.state}`, { state: s.state })
}
