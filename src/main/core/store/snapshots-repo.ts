import { prepared } from './prepared'
import { whereOf } from './where'
import type { SnapshotReason } from '../../../shared/models'
import type { WorkspaceInfo } from '../../../shared/models'
import type { Db } from './database'

/** Where a memory checkpoint of a snapshot lives on its server. */
export interface CheckpointRef {
  /** the checkpoint's name inside its holder container's checkpoints folder */
  name: string
  /** the container whose checkpoints folder holds it (a snapshot's own holder, or the session's) */
  container: string
  bytes: number
}

/** What a snapshot remembers of its session, to recreate one like it. */
export interface SnapshotDetail {
  sessionName?: string
  route?: string
  env?: Record<string, string>
  workspace?: WorkspaceInfo | null
  /** the image the session was first made from */
  originImage?: string
  secrets?: string[]
  /** the session's main process and limits (sessions/session-shape.ts), made again with it */
  shape?: Record<string, unknown>
  layerBytes?: number
  volumeBytes?: number
  note?: string
  /** a running session's capture: how long its processes stood still */
  freezeMs?: number
  /** why a running session's memory was not kept */
  memoryNote?: string
  /**
   * The artefacts belong to a pause (its checkpoint in the session's own container): the snapshot
   * lists that checkpoint while the pause lasts and never deletes what it points at.
   */
  borrowed?: boolean
  /** a pause's checkpoint whose session went on from it (resumed, moved): listed, nothing made from it */
  spent?: boolean
}

export type SnapshotState = 'creating' | 'ready' | 'deleting'

export interface SnapshotRow {
  id: string
  name: string
  version: number
  kind: 'memory+disk' | 'disk'
  sessionId: string | null
  server: string
  imageRef: string | null
  checkpoint: CheckpointRef | null
  volumeRef: string | null
  sizeBytes: number
  parentSnapshot: string | null
  auto: boolean
  testRestored: boolean
  tags: string[]
  detail: SnapshotDetail
  createdAt: string
  reason: SnapshotReason
  state: SnapshotState
  /** insertion order: newest first is rowid descending */
  seq: number
}

interface Raw {
  rowid: number
  id: string
  name: string
  version: number
  kind: 'memory+disk' | 'disk'
  session_id: string | null
  server: string
  image_ref: string | null
  checkpoint: string | null
  volume_ref: string | null
  size_bytes: number
  parent_snapshot: string | null
  auto: number
  test_restored: number
  tags: string
  detail: string
  created_at: string
  reason: SnapshotReason
  state: SnapshotState
}

const fromRaw = (r: Raw): SnapshotRow => ({
  id: r.id,
  name: r.name,
  version: r.version,
  kind: r.kind,
  sessionId: r.session_id,
  server: r.server,
  imageRef: r.image_ref,
  checkpoint: r.checkpoint ? (JSON.parse(r.checkpoint) as CheckpointRef) : null,
  volumeRef: r.volume_ref,
  sizeBytes: r.size_bytes,
  parentSnapshot: r.parent_snapshot,
  auto: r.auto === 1,
  testRestored: r.test_restored === 1,
  tags: JSON.parse(r.tags) as string[],
  detail: JSON.parse(r.detail) as SnapshotDetail,
  createdAt: r.created_at,
  reason: r.reason,
  state: r.state,
  seq: r.rowid,
})

export interface SnapshotFilter {
  sessionId?: string | undefined
  server?: string | undefined
  name?: string | undefined
  auto?: boolean | undefined
  /** only rows older than this seq (the page token) */
  beforeSeq?: number | undefined
}

export type SnapshotPatch = Partial<
  Pick<SnapshotRow, 'kind' | 'imageRef' | 'checkpoint' | 'volumeRef' | 'sizeBytes' | 'testRestored' | 'tags' | 'detail' | 'state' | 'server'>
>

const COLUMN: Record<keyof SnapshotPatch, string> = {
  kind: 'kind',
  imageRef: 'image_ref',
  checkpoint: 'checkpoint',
  volumeRef: 'volume_ref',
  sizeBytes: 'size_bytes',
  testRestored: 'test_restored',
  tags: 'tags',
  detail: 'detail',
  state: 'state',
  server: 'server',
}

function toColumnValue(key: keyof SnapshotPatch, value: unknown): unknown {
  if (key === 'testRestored') return value ? 1 : 0
  if (key === 'tags' || key === 'detail') return JSON.stringify(value ?? (key === 'tags' ? [] : {}))
  if (key === 'checkpoint') return value ? JSON.stringify(value) : null
  return value ?? null
}

export class SnapshotsRepo {
  constructor(private readonly db: Db) {}

  /** Reserves the next version of a name (never reused, even after the snapshot is deleted). */
  reserveVersion(name: string): number {
    return this.db.transaction((): number => {
      const cur = prepared(this.db, 'SELECT last_version FROM snapshot_names WHERE name = ?').get(name) as { last_version: number } | undefined
      const next = (cur?.last_version ?? 0) + 1
      this.db
        .prepare('INSERT INTO snapshot_names(name, last_version) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET last_version = excluded.last_version')
        .run(name, next)
      return next
    }).immediate()
  }

  insert(row: Omit<SnapshotRow, 'seq'>): SnapshotRow {
    const info = this.db
      .prepare(
        `INSERT INTO snapshots(id, name, version, kind, session_id, server, image_ref, checkpoint, volume_ref, size_bytes,
          parent_snapshot, auto, test_restored, tags, detail, created_at, reason, state)
         VALUES (@id, @name, @version, @kind, @sessionId, @server, @imageRef, @checkpoint, @volumeRef, @sizeBytes,
          @parentSnapshot, @auto, @testRestored, @tags, @detail, @createdAt, @reason, @state)`,
      )
      .run({
        ...row,
        checkpoint: row.checkpoint ? JSON.stringify(row.checkpoint) : null,
        auto: row.auto ? 1 : 0,
        testRestored: row.testRestored ? 1 : 0,
        tags: JSON.stringify(row.tags),
        detail: JSON.stringify(row.detail),
      })
    return { ...row, seq: Number(info.lastInsertRowid) }
  }

  get(id: string): SnapshotRow | undefined {
    const r = prepared(this.db, 'SELECT rowid, * FROM snapshots WHERE id = ?').get(id) as Raw | undefined
    return r && fromRaw(r)
  }

  /** NAME:vN exactly, or NAME alone for its newest version that is ready. */
  resolve(ref: string): SnapshotRow | undefined {
    if (/:v\d+$/.test(ref)) return this.get(ref)
    const r = this.db
      .prepare("SELECT rowid, * FROM snapshots WHERE name = ? AND state = 'ready' ORDER BY version DESC LIMIT 1")
      .get(ref) as Raw | undefined
    return r && fromRaw(r)
  }

  /** Newest first; `limit + 1` rows are read so the caller knows whether another page follows. */
  page(filter: SnapshotFilter, limit: number): SnapshotRow[] {
    const { where, params } = whereOf(
      {
        sessionId: ['session_id = @sessionId', filter.sessionId],
        server: ['server = @server', filter.server],
        name: ['name = @name', filter.name],
        auto: ['auto = @auto', filter.auto === undefined ? undefined : Number(filter.auto)],
        beforeSeq: ['rowid < @beforeSeq', filter.beforeSeq],
      },
      ["state = 'ready'"],
    )
    const sql = `SELECT rowid, * FROM snapshots ${where} ORDER BY rowid DESC LIMIT @limit`
    return (prepared(this.db, sql).all({ ...params, limit }) as Raw[]).map(fromRaw)
  }

  /** A session's snapshots, newest first. */
  forSession(sessionId: string, opts: { auto?: boolean; reason?: SnapshotReason } = {}): SnapshotRow[] {
    const { where, params } = whereOf(
      { auto: ['auto = @auto', opts.auto === undefined ? undefined : Number(opts.auto)], reason: ['reason = @reason', opts.reason] },
      ['session_id = @sessionId', "state = 'ready'"],
    )
    return (prepared(this.db, `SELECT rowid, * FROM snapshots ${where} ORDER BY rowid DESC`).all({ ...params, sessionId }) as Raw[]).map(fromRaw)
  }

  /** The ready snapshots taken after any of these (their parent is one of them). */
  children(ids: string[]): Array<{ id: string; name: string; parent: string }> {
    return prepared(
      this.db,
      "SELECT id, name, parent_snapshot AS parent FROM snapshots WHERE state = 'ready' AND parent_snapshot IN (SELECT value FROM json_each(?)) ORDER BY rowid",
    ).all(JSON.stringify(ids)) as Array<{ id: string; name: string; parent: string }>
  }

  inState(state: SnapshotState): SnapshotRow[] {
    return (prepared(this.db, 'SELECT rowid, * FROM snapshots WHERE state = ? ORDER BY rowid').all(state) as Raw[]).map(fromRaw)
  }

  update(id: string, patch: SnapshotPatch): SnapshotRow | undefined {
    const sets: string[] = []
    const params: Record<string, unknown> = { id }
    for (const [key, value] of Object.entries(patch) as [keyof SnapshotPatch, unknown][]) {
      const col = COLUMN[key]
      sets.push(`${col} = @p_${col}`)
      params[`p_${col}`] = toColumnValue(key, value)
    }
    if (sets.length) prepared(this.db, `UPDATE snapshots SET ${sets.join(', ')} WHERE id = @id`).run(params)
    return this.get(id)
  }

  remove(id: string): boolean {
    return this.db.transaction((): boolean => {
      prepared(this.db, 'DELETE FROM snapshot_pins WHERE snapshot_id = ?').run(id)
      return prepared(this.db, 'DELETE FROM snapshots WHERE id = ?').run(id).changes > 0
    })()
  }

  pin(snapshotId: string, by: string, reason: string): void {
    this.db
      .prepare('INSERT OR IGNORE INTO snapshot_pins(snapshot_id, by, reason, created_at) VALUES (?, ?, ?, ?)')
      .run(snapshotId, by, reason, new Date().toISOString())
  }

  pins(snapshotId: string): Array<{ by: string; reason: string }> {
    return prepared(this.db, 'SELECT by, reason FROM snapshot_pins WHERE snapshot_id = ? ORDER BY created_at').all(snapshotId) as Array<{
      by: string
      reason: string
    }>
  }

  /** Releases what one session or snapshot held (it finished, or was deleted). */
  unpinBy(by: string): void {
    prepared(this.db, 'DELETE FROM snapshot_pins WHERE by = ?').run(by)
  }

  isPinned(snapshotId: string): boolean {
    return !!prepared(this.db, 'SELECT 1 FROM snapshot_pins WHERE snapshot_id = ? LIMIT 1').get(snapshotId)
  }
}
