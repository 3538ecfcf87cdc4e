// The window's guard rails: no permission is ever granted (but writing plain text to the
// clipboard), nothing navigates away from our page, no new window or webview opens, and links
// leave for the user's browser only from the allowlist.
import { app, session, shell, type WebContents } from 'electron'
import { isOwnPage } from './app-protocol'
import { isAllowedExternal } from './external-links'

export function openExternalIfAllowed(url: string): boolean {
  if (!isAllowedExternal(url)) return false
  void shell.openExternal(url)
  return true
}

export function hardenSessions(): void {
  const s = session.defaultSession
  s.setPermissionRequestHandler((_contents, permission, callback) => callback(permission === 'clipboard-sanitized-write'))
  s.setPermissionCheckHandler((_contents, permission) => permission === 'clipboard-sanitized-write')
  s.setDevicePermissionHandler(() => false)
  s.on('will-download', (event) => event.preventDefault())
}

export function guardWebContents(): void {
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isOwnPage(url)) event.preventDefault()
      if (!isOwnPage(url)) openExternalIfAllowed(url)
    })
    contents.on('will-redirect', (event, url) => {
      if (!isOwnPage(url)) event.preventDefault()
    })
    contents.on('will-attach-webview', (event) => event.preventDefault())
    contents.setWindowOpenHandler(({ url }) => {
      openExternalIfAllowed(url)
      return { action: 'deny' }
    })
  })
}
