// Draws Berth's icons without any image tool: the app icon (build/icon.png, 1024 px, from which
// electron-builder makes .icns and .ico) and the tray icons (resources/). The picture: a container
// resting on a wave, on a deep teal rounded square. Run: node scripts/make-icons.mjs
import { mkdirSync, writeFileSync } from 'node:fs'
import { deflateSync } from 'node:zlib'

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (buf) => {
  let c = 0xffffffff
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (type, data) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([len, body, crc])
}

/** RGBA pixels (Float rows of 0..1) -> PNG bytes */
function png(size, rgba) {
  const raw = Buffer.alloc(size * (size * 4 + 1))
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0
    for (let x = 0; x < size * 4; x++) raw[y * (size * 4 + 1) + 1 + x] = Math.round(Math.max(0, Math.min(1, rgba[y * size * 4 + x])) * 255)
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(size, 0)
  ihdr.writeUInt32BE(size, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))])
}

// Signed distances in a unit square (0..1, y down): negative inside.
const roundedBox = (x, y, cx, cy, hw, hh, r) => {
  const qx = Math.abs(x - cx) - hw + r
  const qy = Math.abs(y - cy) - hh + r
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - r
}
const wave = (x, y, baseY, thickness) => {
  const center = baseY + 0.025 * Math.sin(x * Math.PI * 4)
  return Math.abs(y - center) - thickness
}

/** The glyph: a container (with door ribs) over a wave; returns coverage of the glyph. */
function glyph(x, y) {
  const box = roundedBox(x, y, 0.5, 0.43, 0.25, 0.15, 0.03)
  let inBox = box < 0
  // ribs: thin vertical gaps in the container
  if (inBox && y > 0.32 && y < 0.54) {
    for (const rx of [0.36, 0.43, 0.5, 0.57, 0.64]) if (Math.abs(x - rx) < 0.009) inBox = false
  }
  const w = wave(x, y, 0.7, 0.028) < 0 && x > 0.18 && x < 0.82
  return inBox || w
}

function render(size, { background, foreground, samples = 4 }) {
  const out = new Float32Array(size * size * 4)
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let bg = 0
      let fg = 0
      for (let sy = 0; sy < samples; sy++) {
        for (let sx = 0; sx < samples; sx++) {
          const x = (px + (sx + 0.5) / samples) / size
          const y = (py + (sy + 0.5) / samples) / size
          if (!background || roundedBox(x, y, 0.5, 0.5, 0.44, 0.44, 0.2) < 0) bg++
          if (glyph(x, y)) fg++
        }
      }
      const n = samples * samples
      const fa = fg / n
      const ba = background ? bg / n : 0
      const i = (py * size + px) * 4
      const t = py / size
      const bgc = background ? background.map((c, k) => c[0] + (c[1] - c[0]) * t) : [0, 0, 0]
      const a = fa + ba * (1 - fa)
      for (let k = 0; k < 3; k++) out[i + k] = a > 0 ? (foreground[k] * fa + bgc[k] * ba * (1 - fa)) / a : 0
      out[i + 3] = a
    }
  }
  return out
}

const hex = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16) / 255)
const teal = [hex('#1b8a8f'), hex('#0b3d4a')].reduce((acc, c, j) => (c.forEach((v, k) => ((acc[k] ??= [])[j] = v)), acc), [])

mkdirSync('build', { recursive: true })
mkdirSync('resources', { recursive: true })
writeFileSync('build/icon.png', png(1024, render(1024, { background: teal, foreground: [1, 1, 1], samples: 3 })))
// the window icon on Linux and the tray on Linux/Windows: the full-colour icon, small
const small = png(256, render(256, { background: teal, foreground: [1, 1, 1] }))
writeFileSync('resources/icon.png', small)
mkdirSync('src/renderer/public', { recursive: true })
writeFileSync('src/renderer/public/favicon.png', small)
writeFileSync('resources/tray.png', png(32, render(32, { background: teal, foreground: [1, 1, 1] })))
// macOS menu bar: a template image (black glyph, alpha only), at 1x and 2x
writeFileSync('resources/trayTemplate.png', png(16, render(16, { foreground: [0, 0, 0] })))
writeFileSync('resources/trayTemplate@2x.png', png(32, render(32, { foreground: [0, 0, 0] })))
console.log('icons written: build/icon.png, resources/{icon,tray,trayTemplate,trayTemplate@2x}.png')
