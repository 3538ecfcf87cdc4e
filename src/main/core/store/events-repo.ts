import { prepared } from './prepared'
import type { EventRecord } from '../../../shared/models'
import type { Db } from './database'
import { nowIso } from './database'

interface Raw {
  seq: number
  at: string
  session_id: string | null
  kind: string
  from_state: string | null
  to_state: string | null
  detail: string
}

const fromRaw = (r: Raw): EventRecord => ({
  seq: r.seq,
  at: r.at,
  sessionId: r.session_id,
  kind: r.kind,
  from: r.from_state,
  to: r.to_state,
  detail: JSON.parse(r.detail) as Record<string, unknown>,
})

/** The append-only log of every state change: the recovery pass reads it after a crash. */
export class EventsRepo {
  private readonly listeners: Array<(e: EventRecord) => void> = []

  constructor(private readonly db: Db) {}

  /** Called with every appended event (the desktop module forwards them as 'event.appended'). */
  onAppend(listener: (e: EventRecord) => void): void {
    this.listeners.push(listener)
  }

  append(e: { sessionId: string | null; kind: string; from?: string | null; to?: string | null; detail?: Record<string, unknown> }): EventRecord {
    const at = nowIso()
    const detail = JSON.stringify(e.detail ?? {})
    const info = this.db
      .prepare('INSERT INTO events(at, session_id, kind, from_state, to_state, detail) VALUES (?,?,?,?,?,?)')
      .run(at, e.sessionId, e.kind, e.from ?? null, e.to ?? null, detail)
    const record = { seq: Number(info.lastInsertRowid), at, sessionId: e.sessionId, kind: e.kind, from: e.from ?? null, to: e.to ?? null, detail: e.detail ?? {} }
    for (const l of this.listeners) l(record)
    return record
  }

  forSession(sessionId: string, limit = 200): EventRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM (SELECT * FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq')
      .all(sessionId, limit) as Raw[]
    return rows.map(fromRaw)
  }

  /** The newest event of a session, optionally of one kind. */
  last(sessionId: string, kind?: string): EventRecord | undefined {
    const r = (
      kind
        ? prepared(this.db, 'SELECT * FROM events WHERE session_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1').get(sessionId, kind)
        : prepared(this.db, 'SELECT * FROM events WHERE session_id = ? ORDER BY seq DESC LIMIT 1').get(sessionId)
    ) as Raw | undefined
    return r && fromRaw(r)
  }
}
