// How numbers and times read in the UI.
import { SESSION_IMAGE_REPO } from '../../../shared/session-values'
import { bytes } from '../../../shared/format'

// sizes and ages read the same in the app and the CLI (src/shared/format.ts)
export { age, bytes } from '../../../shared/format'

export function money(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return n < 0.01 && n > 0 ? '<$0.01' : `$${n.toFixed(2)}`
}

export function percent(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–'
  return `${n.toFixed(n < 10 ? 1 : 0)}%`
}

export function clock(iso: string): string {
  const d = new Date(iso)
  return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '–'
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })
}

/**
 * A session's meter in one line. A running session that was never sampled reads "measuring" (its
 * first sample comes within the sampling interval), not a misleading 0 B.
 */
export function meterLine(meter: { cpuPercent: number; memoryBytes: number; cost: number }, state: string): string {
  if (state === 'running' && meter.memoryBytes === 0 && meter.cpuPercent === 0) return `measuring · ${money(meter.cost)}`
  return `${percent(meter.cpuPercent)} cpu · ${bytes(meter.memoryBytes)} · ${money(meter.cost)}`
}

/**
 * The image a session runs, as a person reads it: Berth's per-session image (made when a session
 * is restarted, moved or started from a snapshot) is named for what it is, not by its tag.
 */
export function imageLabel(image: string): string {
  return image.startsWith(`${SESSION_IMAGE_REPO}:`) ? 'its own disk image' : image
}
