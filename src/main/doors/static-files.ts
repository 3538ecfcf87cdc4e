// The renderer's built files, served the same way to the Electron window (the berth:// protocol)
// and to a browser (`berth serve`): only files under the renderer folder, with a strict CSP.
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'

/**
 * Scripts only from the page's own origin; styles may be inline because xterm.js writes its theme
 * into a <style> element; connections only back to the page's own origin (the WebSocket door).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
}

/** Where the renderer build sits next to the bundle that runs (out/main or out/cli -> out/renderer). */
export function rendererDir(bundleDir: string): string {
  return resolve(bundleDir, '..', 'renderer')
}

export function rendererBuilt(dir: string): boolean {
  return existsSync(join(dir, 'index.html'))
}

export interface StaticFile {
  body: Buffer
  contentType: string
  /** no-store, except for the build's hashed assets, which never change under their name */
  cacheControl: string
}

/**
 * The build's scripts and styles are named by their content (assets/index-Bx3f9a1c.js): a browser
 * may keep them, and keep their compiled code, so a page loaded again does not parse them anew.
 * Everything else (the page itself, which names them) is read fresh every time.
 */
const HASHED_ASSET = /^assets\/[A-Za-z0-9_.-]+-[A-Za-z0-9_-]{8}\.(js|css)$/
export const IMMUTABLE = 'private, max-age=31536000, immutable'

/** Reads `urlPath` under `root`; anything outside it, hidden or missing answers undefined. */
export async function readStatic(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.includes('\0')) return undefined
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '')
  const full = normalize(join(root, relative))
  const base = resolve(root)
  if (full !== base && !full.startsWith(base + sep)) return undefined
  if (relative.split('/').some((part) => part.startsWith('.'))) return undefined
  try {
    if (!statSync(full).isFile()) return undefined
    return {
      body: await readFile(full),
      contentType: TYPES[extname(full).toLowerCase()] ?? 'application/octet-stream',
      cacheControl: HASHED_ASSET.test(relative) ? IMMUTABLE : 'no-store',
    }
  } catch {
    return undefined
  }
}
