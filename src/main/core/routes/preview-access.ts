// Who may use a preview address. The address is a capability: its host name carries the session's
// key (http://<route>-<port>-<key>.localhost:<previewPort>/), so only someone Berth showed it to can
// name it. A web page in the user's browser is an attacker too, and may have learnt an address (a
// Referer, a shared link): so beyond the key, the browser's own account of the request (Fetch
// Metadata, Origin) must say that it is the user's navigation or comes from the preview itself.
// Every refusal, whatever its reason, is the same answer.
import type { IncomingHttpHeaders } from 'node:http'
import { SECRET_PATTERN } from './preview-secrets'

export interface PreviewAddress {
  route: string
  port: number
  secret: string
}

const LABEL = new RegExp(`^([a-z]+-[a-z]+-\\d{2})-(\\d{1,5})-(${SECRET_PATTERN})$`)

export function previewUrl(route: string, port: number, secret: string, previewPort: number): string {
  return `http://${route}-${port}-${secret}.localhost:${previewPort}/`
}

/** The address a Host header names (only under .localhost, on the preview port when one is given). */
export function parsePreviewHost(host: string | undefined, previewPort?: number): PreviewAddress | undefined {
  const m = /^([^.:]+)\.localhost\.?(?::(\d+))?$/.exec((host ?? '').toLowerCase())
  if (!m) return undefined
  if (previewPort !== undefined && m[2] !== undefined && Number(m[2]) !== previewPort) return undefined
  const l = LABEL.exec(m[1]!)
  if (!l) return undefined
  const port = Number(l[2])
  return port >= 1 && port <= 65535 ? { route: l[1]!, port, secret: l[3]! } : undefined
}

/** An Origin header that is a preview address of the same session (any of its ports). */
function sameSession(origin: string, self: PreviewAddress, previewPort: number): boolean {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' || url.pathname !== '/' || Number(url.port || 80) !== previewPort) return false
  const other = parsePreviewHost(url.host, previewPort)
  return !!other && other.route === self.route && other.secret === self.secret
}

const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)

/**
 * May this request go on? (Its key is checked apart.) Allowed: requests of the preview's own pages
 * (same origin, or another port of the same session naming itself in Origin), what the user typed
 * or opened from outside a browser page (Sec-Fetch-Site: none), a top-level GET navigation the
 * user made from another site (a link clicked in Berth's UI), and clients that are not browsers
 * (no Fetch Metadata and no Origin: curl, an editor). Refused: every other cross-site request:
 * fetch and XHR, form posts, frames, images and scripts, prefetches, WebSockets.
 */
export function requestAllowed(req: { method?: string | undefined; headers: IncomingHttpHeaders }, self: PreviewAddress, previewPort: number): boolean {
  const h = req.headers
  const origin = one(h.origin)
  const own = origin !== undefined && sameSession(origin, self, previewPort)
  // a request that names another origin (a CORS fetch, a form post, every WebSocket) is refused
  if (origin !== undefined && !own) return false
  const site = one(h['sec-fetch-site'])
  if (site === undefined || site === 'same-origin' || site === 'none' || own) return true
  // same-site (another *.localhost) or cross-site, without an Origin of this session
  return (
    one(h['sec-fetch-mode']) === 'navigate' &&
    one(h['sec-fetch-dest']) === 'document' &&
    one(h['sec-fetch-user']) === '?1' &&
    (req.method === 'GET' || req.method === 'HEAD')
  )
}

/** The one answer for everything refused: an unknown name, a wrong key, a request from another site. */
export const REFUSAL_STATUS = 404
export const REFUSAL_BODY =
  '<!doctype html><meta charset="utf-8"><title>Berth preview</title><p>No Berth preview answers this request. ' +
  'Open the full address that <code>berth session show</code> lists (it ends in the session&#39;s key) from your address bar or Berth&#39;s window; ' +
  'pages of other sites cannot reach a preview.</p>\n'
export const REFUSAL_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-length': String(Buffer.byteLength(REFUSAL_BODY)),
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
}
