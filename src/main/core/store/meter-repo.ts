import { prepared } from './prepared'
import type { Db } from './database'

/** A session's meter: totals that only grow while it runs, and the latest sample. */
export interface MeterTotals {
  sessionId: string
  cpuSeconds: number
  /** the container's own cumulative cpu counter at the last sample (it restarts at every restore) */
  cpuRaw: number | null
  runningSeconds: number
  cost: number
  peakMemory: number
  memory: number
  disk: number
  cpuPercent: number
  samples: number
  sampledAt: string | null
  /** when the current running interval began; null while the session does not run */
  runningSince: string | null
}

interface Raw {
  session_id: string
  cpu_seconds: number
  cpu_raw: number | null
  running_seconds: number
  cost: number
  peak_memory: number
  memory: number
  disk: number
  cpu_percent: number
  samples: number
  sampled_at: string | null
  running_since: string | null
}

const fromRaw = (r: Raw): MeterTotals => ({
  sessionId: r.session_id,
  cpuSeconds: r.cpu_seconds,
  cpuRaw: r.cpu_raw,
  runningSeconds: r.running_seconds,
  cost: r.cost,
  peakMemory: r.peak_memory,
  memory: r.memory,
  disk: r.disk,
  cpuPercent: r.cpu_percent,
  samples: r.samples,
  sampledAt: r.sampled_at,
  runningSince: r.running_since,
})

export const emptyTotals = (sessionId: string): MeterTotals => ({
  sessionId,
  cpuSeconds: 0,
  cpuRaw: null,
  runningSeconds: 0,
  cost: 0,
  peakMemory: 0,
  memory: 0,
  disk: 0,
  cpuPercent: 0,
  samples: 0,
  sampledAt: null,
  runningSince: null,
})

export class MeterRepo {
  constructor(private readonly db: Db) {}

  get(sessionId: string): MeterTotals | undefined {
    const r = prepared(this.db, 'SELECT * FROM meter_totals WHERE session_id = ?').get(sessionId) as Raw | undefined
    return r && fromRaw(r)
  }

  /** The totals of many sessions in one query (the ids travel as one JSON array). */
  totalsOf(sessionIds: readonly string[]): Map<string, MeterTotals> {
    const rows = prepared(this.db, 'SELECT * FROM meter_totals WHERE session_id IN (SELECT value FROM json_each(?))').all(JSON.stringify(sessionIds)) as Raw[]
    return new Map(rows.map((r) => [r.session_id, fromRaw(r)]))
  }

  all(): MeterTotals[] {
    return (prepared(this.db, 'SELECT * FROM meter_totals').all() as Raw[]).map(fromRaw)
  }

  put(t: MeterTotals): void {
    this.db
      .prepare(
        `INSERT INTO meter_totals(session_id, cpu_seconds, cpu_raw, running_seconds, cost, peak_memory, memory, disk, cpu_percent, samples, sampled_at, running_since)
         VALUES (@sessionId, @cpuSeconds, @cpuRaw, @runningSeconds, @cost, @peakMemory, @memory, @disk, @cpuPercent, @samples, @sampledAt, @runningSince)
         ON CONFLICT(session_id) DO UPDATE SET cpu_seconds = excluded.cpu_seconds, cpu_raw = excluded.cpu_raw,
           running_seconds = excluded.running_seconds, cost = excluded.cost, peak_memory = excluded.peak_memory,
           memory = excluded.memory, disk = excluded.disk, cpu_percent = excluded.cpu_percent, samples = excluded.samples,
           sampled_at = excluded.sampled_at, running_since = excluded.running_since`,
      )
      .run(t)
  }

  /** A sample and the totals it updated, in one transaction. */
  record(t: MeterTotals, sample: { at: string; cpuSeconds: number; memory: number; disk: number }): void {
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR REPLACE INTO meter_samples(session_id, at, cpu_seconds, memory_bytes, disk_bytes) VALUES (?,?,?,?,?)')
        .run(t.sessionId, sample.at, sample.cpuSeconds, sample.memory, sample.disk)
      this.put(t)
    })()
  }

  sampleCount(sessionId: string): number {
    return (prepared(this.db, 'SELECT COUNT(*) AS n FROM meter_samples WHERE session_id = ?').get(sessionId) as { n: number }).n
  }
}
