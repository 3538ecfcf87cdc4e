// How numbers and times read in the UI.
import { SESSION_IMAGE_REPO } from '../../../shared/models'

export function age(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '–'
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m`
  if (s < 86400) return `${Math.floor(s / 3600)}h`
  return `${Math.floor(s / 86400)}d`
}

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
