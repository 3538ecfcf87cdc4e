import Database from 'better-sqlite3'
import { join } from 'node:path'
import { ensurePrivateDir, ensurePrivateFile } from '../durable-file'
import { migrations } from './migrations'
import { sqliteAddon } from './native-module'

export type Db = Database.Database

/**
 * Opens $BERTH_HOME/berth.db: WAL, and synchronous=FULL so a committed state transition survives a
 * power cut (the lid-close path depends on it). Runs pending migrations.
 */
export function openDatabase(home: string, opts: { exclusive?: boolean } = {}): Db {
  ensurePrivateDir(home)
  const file = join(home, 'berth.db')
  const nativeBinding = sqliteAddon(__dirname)
  const db = new Database(file, nativeBinding ? { nativeBinding } : {})
  // SQLite makes the file with the umask's mode, and its -wal and -shm files with the file's own
  ensurePrivateFile(file)
  try {
    if (opts.exclusive) {
      // Only one process drives the engines for a home: the exclusive lock is a kernel lock that dies
      // with its process, so a crashed daemon never blocks the next one. Fail at once, not after a wait.
      db.pragma('busy_timeout = 0')
      db.pragma('locking_mode = EXCLUSIVE')
      db.exec('BEGIN EXCLUSIVE; COMMIT')
    }
    db.pragma('journal_mode = WAL')
  } catch (e) {
    db.close()
    if ((e as { code?: string }).code === 'SQLITE_BUSY') throw new DatabaseLockedError()
    throw e
  }
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

export class DatabaseLockedError extends Error {
  constructor() {
    super('the database is held by another process')
  }
}

/** Applies every step not applied yet, in version order; each step is recorded when it commits. */
export function migrate(db: Db): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)')
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version))
  for (const step of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(step.version)) continue
    db.transaction(() => {
      db.exec(step.sql)
      db.prepare('INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)').run(step.version, nowIso())
    })()
  }
}

export const nowIso = (): string => new Date().toISOString()
