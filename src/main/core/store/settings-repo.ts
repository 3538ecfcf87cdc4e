import { prepared } from './prepared'
import type { Db } from './database'

/** Key/value settings, stored as JSON. Defaults live with the code that reads them. */
export class SettingsRepo {
  constructor(private readonly db: Db) {}

  get<T>(key: string, fallback: T): T {
    const row = prepared(this.db, 'SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined
    return row ? (JSON.parse(row.value) as T) : fallback
  }

  set(key: string, value: unknown): void {
    this.db
      .prepare('INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
      .run(key, JSON.stringify(value))
  }

  all(): Record<string, unknown> {
    const rows = prepared(this.db, 'SELECT key, value FROM settings').all() as { key: string; value: string }[]
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]))
  }
}
