import { prepared } from './prepared'
import type { Db } from './database'
import { nowIso } from './database'

export interface ServerRow {
  name: string
  kind: 'local' | 'ssh'
  url: string
  identity: string | null
  hostKeyFingerprint: string | null
  ratePerHour: number
  options: Record<string, unknown>
  createdAt: string
  /** what the memory-pause test found (checkpoints/criu-probe.ts), or null before it ran */
  memoryProbe: Record<string, unknown> | null
}

interface Raw {
  name: string
  kind: 'local' | 'ssh'
  url: string
  identity: string | null
  host_key_fp: string | null
  rate_per_hour: number
  options: string
  created_at: string
  memory_probe: string | null
}

const fromRaw = (r: Raw): ServerRow => ({
  name: r.name,
  kind: r.kind,
  url: r.url,
  identity: r.identity,
  hostKeyFingerprint: r.host_key_fp,
  ratePerHour: r.rate_per_hour,
  options: JSON.parse(r.options) as Record<string, unknown>,
  createdAt: r.created_at,
  memoryProbe: r.memory_probe ? (JSON.parse(r.memory_probe) as Record<string, unknown>) : null,
})

export class ServersRepo {
  constructor(private readonly db: Db) {}

  list(): ServerRow[] {
    return (prepared(this.db, "SELECT * FROM servers ORDER BY kind = 'ssh', name").all() as Raw[]).map(fromRaw)
  }

  get(name: string): ServerRow | undefined {
    const r = prepared(this.db, 'SELECT * FROM servers WHERE name = ?').get(name) as Raw | undefined
    return r && fromRaw(r)
  }

  insert(s: Omit<ServerRow, 'createdAt' | 'memoryProbe'>): ServerRow {
    const createdAt = nowIso()
    this.db
      .prepare(
        'INSERT INTO servers(name, kind, url, identity, host_key_fp, rate_per_hour, options, created_at) VALUES (?,?,?,?,?,?,?,?)',
      )
      .run(s.name, s.kind, s.url, s.identity, s.hostKeyFingerprint, s.ratePerHour, JSON.stringify(s.options), createdAt)
    return { ...s, createdAt, memoryProbe: null }
  }

  setMemoryProbe(name: string, probe: Record<string, unknown> | null): void {
    prepared(this.db, 'UPDATE servers SET memory_probe = ? WHERE name = ?').run(probe ? JSON.stringify(probe) : null, name)
  }

  update(name: string, patch: Partial<Pick<ServerRow, 'url' | 'ratePerHour' | 'options' | 'identity'>>): void {
    const cur = this.get(name)
    if (!cur) return
    const next = { ...cur, ...patch }
    this.db
      .prepare('UPDATE servers SET url = ?, rate_per_hour = ?, options = ?, identity = ? WHERE name = ?')
      .run(next.url, next.ratePerHour, JSON.stringify(next.options), next.identity, name)
  }

  remove(name: string): boolean {
    return prepared(this.db, 'DELETE FROM servers WHERE name = ?').run(name).changes > 0
  }
}
