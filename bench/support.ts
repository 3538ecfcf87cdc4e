// Shared by the benchmarks: medians, ratios and a plain table. Benchmarks print figures; they
// never pass or fail a test run.
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

export async function timeRuns(n: number, f: () => Promise<unknown>, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await f()
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const t0 = performance.now()
    await f()
    out.push(performance.now() - t0)
  }
  return out
}

export function table(rows: Array<Array<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => (typeof c === 'number' ? fmt(c) : c)))
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  return cells.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')).join('\n')
}

export const fmt = (n: number): string => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2))

/**
 * Times several ways of doing the same thing, interleaved round by round, so a burst of load on
 * a noisy machine falls on all of them alike. Returns the samples of each, in ms.
 */
export async function interleaved(rounds: number, ways: Record<string, () => Promise<unknown>>, warmup = 2): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((k) => [k, []]))
  for (let r = -warmup; r < rounds; r++) {
    for (const [name, f] of Object.entries(ways)) {
      const t0 = performance.now()
      await f()
      if (r >= 0) out[name]!.push(performance.now() - t0)
    }
  }
  return out
}
