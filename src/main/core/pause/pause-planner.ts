// Plans the memory dumps of a pause (one session, or every running one before the lid closes) up
// front: per server a few dumps at a time (ServerRate.slots; many parallel dumps fight over the CPU
// and the disk), the session the user used last first, then the smallest, each with a budget its
// dump may not outrun. The server checks each estimate again against the memory the
// session holds when its turn comes; this plan is what it starts from, and what `power doctor` shows.

/** Stage one of every pause (freeze, files durable) before the first dump starts, per server. */
export const FREEZE_MS = 700
/** What the server keeps back after a dump: reporting the outcome. */
export const FINISH_MS = 300
/** What a disk pause is left once a dump was given up (end the dump, stop, sync; a loaded machine's docker calls take a second each). */
export const DISK_MS = 3000
/** What the planner assumes of a server that has not been measured yet. */
export const DEFAULT_MIBPS = 150
export const DEFAULT_OVERHEAD_MS = 600
const DEFAULT_BYTES = 256 * (1 << 20)
/**
 * How many dumps a server writes at once unless the dumpsAtOnce setting says otherwise (bench/lid-close's
 * "slots" part measures the choices side by side). One: on the 2-core test host, 8 x 256 MiB (4 per
 * server) took 15.6 and 18.0 s one at a time against 14.7 and 21.9 s two at a time (interleaved runs,
 * Dec 7); an earlier single run's 30.8 s against 17.4 s did not hold up. No clear gain, and each of
 * two dumps sharing the cores finishes later than one alone, which a short window punishes.
 */
export const DUMPS_AT_ONCE = 1

export interface PlanSession {
  id: string
  server: string
  /** memory the session holds (the meter's last sample), if known */
  memoryBytes: number | null
  /** when a person last used it (ms since the epoch), if known */
  lastUsedMs: number | null
}

export interface ServerRate {
  /** whether the server can dump memory at all */
  memory: boolean
  mibps: number | null
  overheadMs: number | null
  /** how many dumps it writes at once (DUMPS_AT_ONCE when not said) */
  slots?: number
}

export interface PlannedDump {
  id: string
  server: string
  /** its place in the server's order (0 first) */
  order: number
  /** the estimated dump time, and when it should start after the pause began */
  estimateMs: number
  startsAtMs: number
  /** the longest its dump may run */
  budgetMs: number
  /** whether it is expected to finish within the deadline */
  fits: boolean
}

export function estimateMs(memoryBytes: number | null, rate: ServerRate): number {
  const mib = (memoryBytes ?? DEFAULT_BYTES) / (1 << 20)
  return Math.round((rate.overheadMs ?? DEFAULT_OVERHEAD_MS) + (mib / (rate.mibps ?? DEFAULT_MIBPS)) * 1000)
}

/** A dump's budget is never under this (unless the deadline leaves less): a loaded machine's dump of a small session may take seconds. */
export const MIN_BUDGET_MS = 10_000

/**
 * The longest a dump estimated at EST_MS may run when ROOM_MS is what the deadline leaves: three
 * times its estimate and two seconds (parallel work on the server, a slow disk), at least 10 s,
 * never past the room (and never under half a second, so a dump is at least tried).
 */
export function dumpBudgetMs(estMs: number, roomMs: number): number {
  return Math.max(500, Math.min(roomMs, Math.max(Math.round(estMs * 3 + 2000), MIN_BUDGET_MS)))
}

/**
 * The dumps of `sessions` within `deadlineMs`. `overflow` is what a session that does not fit
 * becomes: 'disk' keeps room for a disk pause after a dump given up, 'frozen' does not.
 */
export function planDumps(sessions: PlanSession[], rateOf: (server: string) => ServerRate, deadlineMs: number, overflow: 'frozen' | 'disk'): PlannedDump[] {
  const byServer = new Map<string, PlanSession[]>()
  for (const s of sessions) {
    if (!rateOf(s.server).memory) continue
    byServer.set(s.server, [...(byServer.get(s.server) ?? []), s])
  }
  const plans: PlannedDump[] = []
  const reserve = FINISH_MS + (overflow === 'disk' ? DISK_MS : 0)
  for (const [server, list] of byServer) {
    const rate = rateOf(server)
    const withEstimate = list.map((s) => ({ s, est: estimateMs(s.memoryBytes, rate) }))
    const lastUsed = withEstimate.reduce<(typeof withEstimate)[number] | undefined>((best, x) => ((x.s.lastUsedMs ?? 0) > (best?.s.lastUsedMs ?? 0) ? x : best), undefined)
    const rest = withEstimate.filter((x) => x !== lastUsed).sort((a, b) => a.est - b.est || a.s.id.localeCompare(b.s.id))
    const ordered = lastUsed && (lastUsed.s.lastUsedMs ?? 0) > 0 ? [lastUsed, ...rest] : [...withEstimate].sort((a, b) => a.est - b.est || a.s.id.localeCompare(b.s.id))
    // each dump starts on the lane that frees first (one lane: one after the other)
    const lanes: number[] = new Array<number>(Math.max(1, Math.floor(rate.slots ?? DUMPS_AT_ONCE))).fill(FREEZE_MS)
    ordered.forEach(({ s, est }, order) => {
      const lane = lanes.indexOf(Math.min(...lanes))
      const at = lanes[lane]!
      const room = deadlineMs - at - reserve
      const budgetMs = dumpBudgetMs(est, room)
      plans.push({ id: s.id, server, order, estimateMs: est, startsAtMs: at, budgetMs, fits: at + est + FINISH_MS <= deadlineMs })
      lanes[lane] = at + est
    })
  }
  return plans
}

/** How long the dumps of a plan need: the busiest server's total (servers work in parallel). */
export function planNeedsMs(plans: PlannedDump[]): number {
  const total = new Map<string, number>()
  for (const p of plans) total.set(p.server, Math.max(total.get(p.server) ?? 0, p.startsAtMs + p.estimateMs + FINISH_MS))
  return Math.max(FREEZE_MS, ...total.values())
}
