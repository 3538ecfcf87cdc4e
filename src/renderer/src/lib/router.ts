// Hash routes: they work the same from berth://app/ and from the token path of `berth serve`.
export type Route =
  | { screen: 'sessions' }
  | { screen: 'session'; id: string }
  | { screen: 'snapshots'; session?: string }
  | { screen: 'servers' }
  | { screen: 'settings' }

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent)
  switch (parts[0]) {
    case 'sessions':
      return parts[1] ? { screen: 'session', id: parts[1] } : { screen: 'sessions' }
    case 'snapshots':
      return parts[1] ? { screen: 'snapshots', session: parts[1] } : { screen: 'snapshots' }
    case 'servers':
      return { screen: 'servers' }
    case 'settings':
      return { screen: 'settings' }
    default:
      return { screen: 'sessions' }
  }
}

export function routeHash(r: Route): string {
  switch (r.screen) {
    case 'session':
      return `#/sessions/${encodeURIComponent(r.id)}`
    case 'snapshots':
      return r.session ? `#/snapshots/${encodeURIComponent(r.session)}` : '#/snapshots'
    default:
      return `#/${r.screen}`
  }
}
