// Which addresses the app may hand to the user's browser. Everything else is refused: a page
// inside the window can never make the shell open an arbitrary URL or scheme.
const ALLOWED_HOSTS = new Set(['docs.docker.com', 'github.com', 'www.electronjs.org'])

export function isAllowedExternal(raw: string): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.username || url.password) return false
  // a session's preview address (http://<route>-<port>-<key>.localhost:<port>/) or a loopback page
  if (url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname.endsWith('.localhost') || url.hostname === '127.0.0.1')) return true
  return url.protocol === 'https:' && ALLOWED_HOSTS.has(url.hostname)
}
