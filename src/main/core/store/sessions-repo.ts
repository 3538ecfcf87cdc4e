import { prepared, preparedRaw } from './prepared'
import { whereOf } from './where'
import type { PauseMode, PausedBy, Session, SessionState, SessionSummary, WorkspaceInfo } from '../../../shared/models'
import type { Db } from './database'

/** A session as stored; the service adds live parts (meter, activity, previews) when it shows one. */
export type SessionRow = Omit<Session, 'meter' | 'activity' | 'previews' | 'sshLine' | 'progress'> & {
  version: number
  idleAfterSeconds: number | null
  options: Record<string, unknown>
}

/** A session as a listing reads it: only the columns its summary shows. */
export type SessionSummaryRow = Omit<SessionSummary, 'meter'>

// Rows are read as arrays in this column order: better-sqlite3 builds an object per row with a
// key per column, which took half of a 1,000-session listing. A summary's columns come first, so
// a listing reads only those and both shapes find them at the same places.
const SUMMARY_COLUMNS = ['id', 'name', 'server', 'state', 'mode', 'paused_by', 'durable', 'image', 'route', 'workspace', 'created_at', 'failure'] as const
const COLUMNS = [
  ...SUMMARY_COLUMNS,
  'container_id', 'env', 'secrets', 'auto_pause', 'idle_after_s', 'options', 'updated_at', 'finished_at', 'saved_at', 'version',
] as const
const SELECT = `SELECT ${COLUMNS.join(', ')} FROM sessions`
const SELECT_SUMMARY = `SELECT ${SUMMARY_COLUMNS.join(', ')} FROM sessions`

type Raw = unknown[]
/** each column's place in a row */
const at = Object.fromEntries(COLUMNS.map((c, i) => [c, i])) as { [C in (typeof COLUMNS)[number]]: number }

const summaryFromRaw = (r: Raw): SessionSummaryRow => ({
  id: r[at.id] as string,
  name: r[at.name] as string,
  server: r[at.server] as string,
  state: r[at.state] as SessionState,
  mode: r[at.mode] as PauseMode | null,
  pausedBy: r[at.paused_by] as PausedBy | null,
  durable: r[at.durable] === 1,
  image: r[at.image] as string,
  route: r[at.route] as string,
  workspace: r[at.workspace] ? (JSON.parse(r[at.workspace] as string) as WorkspaceInfo) : null,
  createdAt: r[at.created_at] as string,
  failure: r[at.failure] as string | null,
})

const fromRaw = (r: Raw): SessionRow => ({
  ...summaryFromRaw(r),
  containerId: r[at.container_id] as string | null,
  env: JSON.parse(r[at.env] as string) as Record<string, string>,
  secrets: JSON.parse(r[at.secrets] as string) as string[],
  autoPause: r[at.auto_pause] === 1,
  idleAfterSeconds: r[at.idle_after_s] as number | null,
  options: JSON.parse(r[at.options] as string) as Record<string, unknown>,
  updatedAt: r[at.updated_at] as string,
  finishedAt: r[at.finished_at] as string | null,
  savedAt: r[at.saved_at] as string | null,
  version: r[at.version] as number,
})

/** The columns a transition may change besides the state, keyed by the row's field names. */
export type SessionPatch = Partial<
  Pick<
    SessionRow,
    | 'mode'
    | 'pausedBy'
    | 'durable'
    | 'containerId'
    | 'server'
    | 'image'
    | 'env'
    | 'workspace'
    | 'finishedAt'
    | 'savedAt'
    | 'failure'
    | 'autoPause'
    | 'idleAfterSeconds'
    | 'options'
    | 'name'
  >
>

const COLUMN: Record<keyof SessionPatch, string> = {
  mode: 'mode',
  pausedBy: 'paused_by',
  durable: 'durable',
  containerId: 'container_id',
  server: 'server',
  image: 'image',
  env: 'env',
  workspace: 'workspace',
  finishedAt: 'finished_at',
  savedAt: 'saved_at',
  failure: 'failure',
  autoPause: 'auto_pause',
  idleAfterSeconds: 'idle_after_s',
  options: 'options',
  name: 'name',
}

function toColumnValue(key: keyof SessionPatch, value: unknown): unknown {
  if (key === 'durable' || key === 'autoPause') return value ? 1 : 0
  if (key === 'env' || key === 'options') return JSON.stringify(value ?? {})
  if (key === 'workspace') return value ? JSON.stringify(value) : null
  return value ?? null
}

export interface SessionFilter {
  state?: SessionState | undefined
  server?: string | undefined
}

const filtered = (filter: SessionFilter) => whereOf({ state: ['state = @state', filter.state], server: ['server = @server', filter.server] })

export class SessionsRepo {
  constructor(private readonly db: Db) {}

  insert(s: SessionRow): void {
    this.db
      .prepare(
        `INSERT INTO sessions(id, name, server, state, mode, paused_by, durable, image, container_id, route, env, secrets,
          workspace, auto_pause, idle_after_s, options, created_at, updated_at, finished_at, saved_at, failure, version)
         VALUES (@id, @name, @server, @state, @mode, @pausedBy, @durable, @image, @containerId, @route, @env, @secrets,
          @workspace, @autoPause, @idleAfterSeconds, @options, @createdAt, @updatedAt, @finishedAt, @savedAt, @failure, @version)`,
      )
      .run({
        ...s,
        durable: s.durable ? 1 : 0,
        autoPause: s.autoPause ? 1 : 0,
        env: JSON.stringify(s.env),
        secrets: JSON.stringify(s.secrets),
        workspace: s.workspace ? JSON.stringify(s.workspace) : null,
        options: JSON.stringify(s.options),
      })
  }

  get(id: string): SessionRow | undefined {
    const r = preparedRaw(this.db, `${SELECT} WHERE id = ?`).get(id) as Raw | undefined
    return r && fromRaw(r)
  }

  /** Finds a session by id, route, or name (a live session's name wins over a finished one's). */
  find(ref: string): SessionRow | undefined {
    const r = preparedRaw(
      this.db,
      `${SELECT} WHERE id = @ref OR route = @ref OR name = @ref
       ORDER BY (id = @ref) DESC, (route = @ref) DESC, (state = 'finished') ASC, created_at DESC LIMIT 1`,
    ).get({ ref }) as Raw | undefined
    return r && fromRaw(r)
  }

  /** Newest first. */
  list(filter: SessionFilter = {}): SessionRow[] {
    const { where, params } = filtered(filter)
    return (preparedRaw(this.db, `${SELECT} ${where} ORDER BY created_at DESC, id`).all(params) as Raw[]).map(fromRaw)
  }

  /** list(), reading only what a summary shows. */
  listSummaries(filter: SessionFilter = {}): SessionSummaryRow[] {
    const { where, params } = filtered(filter)
    return (preparedRaw(this.db, `${SELECT_SUMMARY} ${where} ORDER BY created_at DESC, id`).all(params) as Raw[]).map(summaryFromRaw)
  }

  inStates(states: readonly SessionState[]): SessionRow[] {
    const marks = states.map(() => '?').join(',')
    return (preparedRaw(this.db, `${SELECT} WHERE state IN (${marks}) ORDER BY created_at`).all(...states) as Raw[]).map(fromRaw)
  }

  liveNameTaken(name: string): boolean {
    return !!prepared(this.db, "SELECT 1 FROM sessions WHERE name = ? AND state NOT IN ('finished','failed')").get(name)
  }

  routeTaken(route: string): boolean {
    return !!prepared(this.db, 'SELECT 1 FROM sessions WHERE route = ?').get(route)
  }

  /**
   * Compare-and-set: moves the row to `to` only if its state is one of `from` (and, when given, its
   * version is `expectVersion`). Returns the number of rows changed (0 or 1).
   */
  compareAndSet(id: string, from: readonly SessionState[], to: SessionState, patch: SessionPatch, at: string, expectVersion?: number): number {
    const sets = ['state = @to', 'updated_at = @at', 'version = version + 1']
    const params: Record<string, unknown> = { id, to, at }
    for (const [key, value] of Object.entries(patch) as [keyof SessionPatch, unknown][]) {
      const col = COLUMN[key]
      sets.push(`${col} = @p_${col}`)
      params[`p_${col}`] = toColumnValue(key, value)
    }
    const fromMarks = from.map((_, i) => `@from${i}`).join(',')
    from.forEach((s, i) => (params[`from${i}`] = s))
    let sql = `UPDATE sessions SET ${sets.join(', ')} WHERE id = @id AND state IN (${fromMarks})`
    if (expectVersion !== undefined) {
      sql += ' AND version = @expectVersion'
      params.expectVersion = expectVersion
    }
    return prepared(this.db, sql).run(params).changes
  }

  /** Changes fields that are not part of the state machine (settings of a session, savedAt). */
  patch(id: string, patch: SessionPatch, at: string): void {
    const sets = ['updated_at = @at']
    const params: Record<string, unknown> = { id, at }
    for (const [key, value] of Object.entries(patch) as [keyof SessionPatch, unknown][]) {
      const col = COLUMN[key]
      sets.push(`${col} = @p_${col}`)
      params[`p_${col}`] = toColumnValue(key, value)
    }
    prepared(this.db, `UPDATE sessions SET ${sets.join(', ')} WHERE id = @id`).run(params)
  }
}
