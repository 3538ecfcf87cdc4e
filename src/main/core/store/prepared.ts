import type { Statement } from 'better-sqlite3'
import type { Db } from './database'

const caches = new WeakMap<Db, Map<string, Statement>>()

/**
 * The statement for `sql`, compiled once per database: better-sqlite3 compiles on every prepare(),
 * and a listing of 1,000 sessions asked for thousands of the same few statements.
 */
export function prepared(db: Db, sql: string): Statement {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new Map()))
  let stmt = cache.get(sql)
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)))
  return stmt
}
