// Stream data crosses the contract as base64; terminals work in bytes.
const encoder = new TextEncoder()

type WithBase64 = { fromBase64?: (s: string) => Uint8Array }

export function fromBase64(s: string): Uint8Array {
  const native = (Uint8Array as unknown as WithBase64).fromBase64
  if (native) return native(s)
  const bin = atob(s)
  const out = new Uint8Array(bin.length)
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i)
  return out
}

export function toBase64(bytes: Uint8Array): string {
  const native = (bytes as unknown as { toBase64?: () => string }).toBase64
  if (native) return native.call(bytes)
  let bin = ''
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(bin)
}

/** Keyboard input (a JS string) as UTF-8 base64. */
export const textToBase64 = (s: string) => toBase64(encoder.encode(s))

/** xterm's onBinary data: one byte per char (mouse reports in legacy encodings). */
export function binaryToBase64(s: string): string {
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff
  return toBase64(out)
}
