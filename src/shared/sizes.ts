// Sizes as people write them (64m, 1.5g, 512MiB) and as Berth prints them. Binary units, as Docker
// reads --memory: 64m is 64 MiB.
const UNITS: Record<string, number> = { '': 1, b: 1, k: 2 ** 10, m: 2 ** 20, g: 2 ** 30, t: 2 ** 40 }

/** Bytes of a size like 64m, 2g, 1.5GiB, 4096; undefined when it is not one. */
export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$/i.exec(text)
  if (!m) return undefined
  const bytes = Math.round(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!)
  return Number.isSafeInteger(bytes) ? bytes : undefined
}

/** 67108864 -> "64 MiB", 1536 -> "1.5 KiB" (one decimal when it is not whole). */
export function formatSize(bytes: number): string {
  const steps = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let v = bytes
  let i = 0
  while (Math.abs(v) >= 1024 && i < steps.length - 1) {
    v /= 1024
    i++
  }
  const shown = Number.isInteger(v) ? String(v) : v.toFixed(1).replace(/\.0$/, '')
  return `${shown} ${steps[i]}`
}
