// The whole app on a fake core, opened at a route: what the screen tests start from.
import { cleanup, render } from '@testing-library/react'
import { DEFAULT_SETTINGS } from '../../../shared/settings'
import { App } from '../App'
import { createAppStores, type AppStores } from '../stores/app-stores'
import { localServer, type FakeClient } from './fake-client'

/** Renders the app at HASH on a core that lists the local server and has default settings (these answers replace any set before). */
export function bootApp(client: FakeClient, hash = '#/sessions'): AppStores {
  window.location.hash = hash
  client
    .handle('server.list', () => [localServer])
    .handle('settings.get', () => DEFAULT_SETTINGS)
    .handle('server.test', (a) => ({ name: a.name, version: '20.10.24', apiVersion: '1.41', rttMs: 0.8, checkpoint: true, os: 'Debian', kernel: '6.1', memoryPause: { available: true, how: 'fast' as const, note: 'memory pauses work', probedAt: '2025-01-01T00:00:00Z', dumpMiBps: 300 } }))
  const stores = createAppStores(client, window)
  render(<App stores={stores} />)
  return stores
}

/** For afterEach: unmounts the app and leaves the route. */
export function closeApp(): void {
  cleanup()
  window.location.hash = ''
}
