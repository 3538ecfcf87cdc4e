import type { Statement } from 'better-sqlite3'
import type { Db } from './database'

const caches = new WeakMap<Db, Map<string, Statement>>()

function cached(db: Db, key: string, make: () => Statement): Statement {
  let cache = caches.get(db)
  if (!cache) caches.set(db, (cache = new Map()))
  let stmt = cache.get(key)
  if (!stmt) cache.set(key, (stmt = make()))
  return stmt
}

/**
 * The statement for `sql`, compiled once per database: better-sqlite3 compiles on every prepare(),
 * and a listing of 1,000 sessions asked for thousands of the same few statements.
 */
export const prepared = (db: Db, sql: string): Statement => cached(db, sql, () => db.prepare(sql))

/** Like prepared(), for a statement that answers rows as arrays (raw mode belongs to the statement, so it is cached apart). */
export const preparedRaw = (db: Db, sql: string): Statement => cached(db, `raw:${sql}`, () => db.prepare(sql).raw(true))
