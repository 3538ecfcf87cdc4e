// The window loads berth://app/..., a privileged standard scheme served from the renderer build:
// the page gets a real origin (for the CSP and the IPC sender check) instead of file://.
import { protocol } from 'electron'
import { readStatic, SECURITY_HEADERS } from '../doors/static-files'

export const APP_SCHEME = 'berth'
export const APP_ORIGIN = `${APP_SCHEME}://app`
export const APP_URL = `${APP_ORIGIN}/index.html`

/** Must run before the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }])
}

export function isOwnPage(url: string): boolean {
  try {
    const u = new URL(url)
    return u.protocol === `${APP_SCHEME}:` && u.host === 'app'
  } catch {
    return false
  }
}

export function serveAppProtocol(rendererRoot: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url)
    if (url.host !== 'app' || request.method !== 'GET') return new Response('not found', { status: 404 })
    const file = await readStatic(rendererRoot, url.pathname)
    if (!file) return new Response('not found', { status: 404 })
    return new Response(new Uint8Array(file.body), { status: 200, headers: { ...SECURITY_HEADERS, 'cache-control': file.cacheControl, 'content-type': file.contentType } })
  })
}
