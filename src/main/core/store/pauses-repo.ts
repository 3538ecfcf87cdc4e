import { prepared } from './prepared'
import type { PauseMode, PausedBy } from '../../../shared/models'
import type { Db } from './database'
import { nowIso } from './database'

/** running: the server-side job is under way; paused: the sandbox stopped; durable: on disk. */
export type PauseStatus = 'running' | 'paused' | 'durable' | 'failed' | 'resumed'

/** One pause of a session: what it kept, where, and the server-side job that made it. */
export interface PauseRow {
  sessionId: string
  seq: number
  snapshot: string
  server: string
  containerId: string
  requested: PauseMode
  mode: PauseMode | null
  pausedBy: PausedBy
  job: string
  status: PauseStatus
  checkpoint: string | null
  image: string | null
  bytes: number
  fallback: string | null
  failure: string | null
  detail: Record<string, unknown>
  createdAt: string
  durableAt: string | null
  resumedAt: string | null
  removedAt: string | null
}

interface Raw {
  session_id: string
  seq: number
  snapshot: string
  server: string
  container_id: string
  requested: PauseMode
  mode: PauseMode | null
  paused_by: PausedBy
  job: string
  status: PauseStatus
  checkpoint: string | null
  image: string | null
  bytes: number
  fallback: string | null
  failure: string | null
  detail: string
  created_at: string
  durable_at: string | null
  resumed_at: string | null
  removed_at: string | null
}

const fromRaw = (r: Raw): PauseRow => ({
  sessionId: r.session_id,
  seq: r.seq,
  snapshot: r.snapshot,
  server: r.server,
  containerId: r.container_id,
  requested: r.requested,
  mode: r.mode,
  pausedBy: r.paused_by,
  job: r.job,
  status: r.status,
  checkpoint: r.checkpoint,
  image: r.image,
  bytes: r.bytes,
  fallback: r.fallback,
  failure: r.failure,
  detail: JSON.parse(r.detail) as Record<string, unknown>,
  createdAt: r.created_at,
  durableAt: r.durable_at,
  resumedAt: r.resumed_at,
  removedAt: r.removed_at,
})

export type PausePatch = Partial<
  Pick<PauseRow, 'mode' | 'status' | 'checkpoint' | 'image' | 'bytes' | 'fallback' | 'failure' | 'detail' | 'durableAt' | 'resumedAt' | 'removedAt'>
>

const COLUMN: Record<keyof PausePatch, string> = {
  mode: 'mode',
  status: 'status',
  checkpoint: 'checkpoint',
  image: 'image',
  bytes: 'bytes',
  fallback: 'fallback',
  failure: 'failure',
  detail: 'detail',
  durableAt: 'durable_at',
  resumedAt: 'resumed_at',
  removedAt: 'removed_at',
}

export class PausesRepo {
  constructor(private readonly db: Db) {}

  /** Records a new pause with the next number of its session. */
  insert(p: Omit<PauseRow, 'seq' | 'snapshot' | 'createdAt' | 'status' | 'durableAt' | 'resumedAt' | 'removedAt' | 'job'> & { job: (seq: number) => string }): PauseRow {
    return this.db.transaction((): PauseRow => {
      const max = prepared(this.db, 'SELECT MAX(seq) AS m FROM pauses WHERE session_id = ?').get(p.sessionId) as { m: number | null }
      const seq = (max.m ?? 0) + 1
      const row: PauseRow = {
        ...p,
        seq,
        snapshot: `pause-${seq}`,
        job: p.job(seq),
        status: 'running',
        createdAt: nowIso(),
        durableAt: null,
        resumedAt: null,
        removedAt: null,
      }
      this.db
        .prepare(
          `INSERT INTO pauses(session_id, seq, snapshot, server, container_id, requested, mode, paused_by, job, status, checkpoint,
            image, bytes, fallback, failure, detail, created_at)
           VALUES (@sessionId, @seq, @snapshot, @server, @containerId, @requested, @mode, @pausedBy, @job, @status, @checkpoint,
            @image, @bytes, @fallback, @failure, @detail, @createdAt)`,
        )
        .run({ ...row, detail: JSON.stringify(row.detail) })
      return row
    })()
  }

  get(sessionId: string, seq: number): PauseRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM pauses WHERE session_id = ? AND seq = ?').get(sessionId, seq) as Raw | undefined
    return r && fromRaw(r)
  }

  /** The newest pause of a session. */
  latest(sessionId: string): PauseRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM pauses WHERE session_id = ? ORDER BY seq DESC LIMIT 1').get(sessionId) as Raw | undefined
    return r && fromRaw(r)
  }

  forSession(sessionId: string): PauseRow[] {
    return (prepared(this.db, 'SELECT * FROM pauses WHERE session_id = ? ORDER BY seq').all(sessionId) as Raw[]).map(fromRaw)
  }

  /** Pauses whose artefacts (checkpoint, image) are still on their server. */
  withArtefacts(sessionId: string): PauseRow[] {
    return this.forSession(sessionId).filter((p) => !p.removedAt && (p.checkpoint || p.image))
  }

  /** The pause's artefacts now live on another server, in another container (a move). */
  relocate(sessionId: string, seq: number, server: string, containerId: string): void {
    prepared(this.db, 'UPDATE pauses SET server = ?, container_id = ? WHERE session_id = ? AND seq = ?').run(server, containerId, sessionId, seq)
  }

  update(sessionId: string, seq: number, patch: PausePatch): void {
    const sets: string[] = []
    const params: Record<string, unknown> = { sessionId, seq }
    for (const [key, value] of Object.entries(patch) as [keyof PausePatch, unknown][]) {
      sets.push(`${COLUMN[key]} = @${key}`)
      params[key] = key === 'detail' ? JSON.stringify(value ?? {}) : (value ?? null)
    }
    if (!sets.length) return
    prepared(this.db, `UPDATE pauses SET ${sets.join(', ')} WHERE session_id = @sessionId AND seq = @seq`).run(params)
  }
}
