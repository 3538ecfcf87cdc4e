import { prepared } from './prepared'
import type { Db } from './database'

export type ReplicaStatus = 'current' | 'syncing' | 'stale'

export interface ReplicaRow {
  sessionId: string
  server: string
  containerId: string | null
  kind: 'memory' | 'disk'
  /** the checkpoint's name inside the container (a memory replica) */
  checkpoint: string | null
  /** the pause it copied (null: a seal) */
  pauseSeq: number | null
  at: string
  status: ReplicaStatus
  generation: number
  source: string
  bytes: number
  syncedAt: string | null
  failure: string | null
  /** the transfer's staged parts on both servers (a cut try continues from them) */
  stageKey: string | null
}

interface Raw {
  session_id: string
  server: string
  container_id: string | null
  kind: 'memory' | 'disk'
  checkpoint: string | null
  pause_seq: number | null
  at: string
  status: ReplicaStatus
  generation: number
  source: string
  bytes: number
  synced_at: string | null
  failure: string | null
  stage_key: string | null
}

const fromRaw = (r: Raw): ReplicaRow => ({
  sessionId: r.session_id,
  server: r.server,
  containerId: r.container_id,
  kind: r.kind,
  checkpoint: r.checkpoint,
  pauseSeq: r.pause_seq,
  at: r.at,
  status: r.status,
  generation: r.generation,
  source: r.source,
  bytes: r.bytes,
  syncedAt: r.synced_at,
  failure: r.failure,
  stageKey: r.stage_key,
})

/** Replica targets, generations and the copies of sessions on other servers. */
export class ReplicasRepo {
  constructor(private readonly db: Db) {}

  target(sessionId: string): string | null {
    const r = prepared(this.db, 'SELECT target FROM replica_sessions WHERE session_id = ?').get(sessionId) as { target: string | null } | undefined
    return r?.target ?? null
  }

  setTarget(sessionId: string, target: string | null): void {
    prepared(this.db, 'INSERT INTO replica_sessions(session_id, target) VALUES (?, ?) ON CONFLICT(session_id) DO UPDATE SET target = excluded.target').run(sessionId, target)
  }

  generation(sessionId: string): number {
    const r = prepared(this.db, 'SELECT generation FROM replica_sessions WHERE session_id = ?').get(sessionId) as { generation: number } | undefined
    return r?.generation ?? 0
  }

  bumpGeneration(sessionId: string): number {
    prepared(this.db, 'INSERT INTO replica_sessions(session_id, generation) VALUES (?, 1) ON CONFLICT(session_id) DO UPDATE SET generation = generation + 1').run(sessionId)
    return this.generation(sessionId)
  }

  get(sessionId: string, server: string): ReplicaRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM replicas WHERE session_id = ? AND server = ?').get(sessionId, server) as Raw | undefined
    return r ? fromRaw(r) : undefined
  }

  list(sessionId?: string): ReplicaRow[] {
    const rows = (sessionId
      ? prepared(this.db, 'SELECT * FROM replicas WHERE session_id = ? ORDER BY at DESC').all(sessionId)
      : prepared(this.db, 'SELECT * FROM replicas ORDER BY at DESC').all()) as Raw[]
    return rows.map(fromRaw)
  }

  put(r: ReplicaRow): void {
    prepared(
      this.db,
      `INSERT INTO replicas(session_id, server, container_id, kind, checkpoint, pause_seq, at, status, generation, source, bytes, synced_at, failure, stage_key)
       VALUES (@sessionId, @server, @containerId, @kind, @checkpoint, @pauseSeq, @at, @status, @generation, @source, @bytes, @syncedAt, @failure, @stageKey)
       ON CONFLICT(session_id, server) DO UPDATE SET container_id = excluded.container_id, kind = excluded.kind, checkpoint = excluded.checkpoint,
         pause_seq = excluded.pause_seq, at = excluded.at, status = excluded.status, generation = excluded.generation, source = excluded.source,
         bytes = excluded.bytes, synced_at = excluded.synced_at, failure = excluded.failure, stage_key = excluded.stage_key`,
    ).run(r)
  }

  patch(sessionId: string, server: string, p: Partial<Pick<ReplicaRow, 'status' | 'failure' | 'stageKey' | 'containerId'>>): void {
    const cur = this.get(sessionId, server)
    if (cur) this.put({ ...cur, ...p })
  }

  remove(sessionId: string, server: string): void {
    prepared(this.db, 'DELETE FROM replicas WHERE session_id = ? AND server = ?').run(sessionId, server)
  }

  forget(sessionId: string): void {
    prepared(this.db, 'DELETE FROM replicas WHERE session_id = ?').run(sessionId)
    prepared(this.db, 'DELETE FROM replica_sessions WHERE session_id = ?').run(sessionId)
  }
}
