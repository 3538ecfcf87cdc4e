// How sizes, durations and times read for a person, in the CLI's plain output and in the app alike
// (--json and the contract keep the exact numbers and ISO times).

/** "512 B", "1.5 KiB", "42.0 MiB", "150 GiB": binary units, one decimal below 100; "–" for no figure. */
export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  if (n < 1024) return `${n} B`
  const units = ['KiB', 'MiB', 'GiB', 'TiB']
  let v = n / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`
}

/** "42 s", "5 min", "3 h 12 min", "2 d 4 h": the two largest units, rounded down. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  if (s < 60) return `${s} s`
  const min = Math.floor(s / 60)
  if (min < 60) return `${min} min`
  const h = Math.floor(min / 60)
  if (h < 24) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`
  const d = Math.floor(h / 24)
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`
}

/** Milliseconds as a short figure: "850 ms", "2.4 s", "3 min". */
export function millis(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  return duration(ms / 1000)
}

/** Whole seconds from an ISO time to now (never negative; NaN for a time that does not parse). */
function secondsSince(iso: string, now: number): number {
  return Math.max(0, Math.floor((now - Date.parse(iso)) / 1000))
}

/** "42s", "5m", "3h", "2d": an age for a narrow column; "–" for none. */
export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '–'
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86400)}d`
}

/** "just now", "5 min ago", "3 h ago", "2 d ago" (one unit: a listing's column stays short). */
export function ago(iso: string, now = Date.now()): string {
  const s = secondsSince(iso, now)
  if (!Number.isFinite(s)) return iso
  if (s < 10) return 'just now'
  if (s < 60) return `${s} s ago`
  if (s < 3600) return `${Math.floor(s / 60)} min ago`
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`
  return `${Math.floor(s / 86400)} d ago`
}

/** A time in local words with its exact stamp beside it: "5 min ago (2025-03-01 14:02)". */
export function when(iso: string, now = Date.now()): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return iso
  const pad = (n: number) => String(n).padStart(2, '0')
  const stamp = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
  return `${ago(iso, now)} (${stamp})`
}

/** What create tells of a devcontainer.json's keys Berth did not act on (null: none), and that Features may come later. */
export function ignoredLine(ignored: readonly string[]): string | null {
  if (!ignored.length) return null
  const features = ignored.includes('features') ? ' (Dev Container Features are not supported yet; they may come in a later Berth)' : ''
  return `ignored: ${ignored.join(', ')}${features}`
}

/**
 * A session's replica in one line, the same in `session show` and the app: "disk copy on office of
 * 5 min ago (2025-03-01 14:02), up to date", or how far behind it is and why its last try failed.
 */
export function replicaLine(r: { server: string; at: string; kind: string; behindSeconds: number; failure: string | null }, now = Date.now()): string {
  const lag = r.behindSeconds ? `, ${duration(r.behindSeconds)} behind` : ', up to date'
  return `${r.kind} copy on ${r.server} of ${when(r.at, now)}${lag}${r.failure ? ` (${r.failure})` : ''}`
}
