// One store per domain, created once per page with the client, handed to components by context.
import { createContext, useContext } from 'react'
import { useStore } from 'zustand'
import type { Client } from '../api/client'
import { createEventsStore, type EventsState } from './events'
import { createServersStore, type ServersState } from './servers'
import { createSessionsStore, type SessionsState } from './sessions'
import { createSettingsStore, type SettingsState } from './settings'
import { createSnapshotsStore, type SnapshotsState } from './snapshots'
import { createSnapshotBrowserStore, type SnapshotBrowserState } from './snapshot-browser'
import { createWorkspaceStore, type WorkspaceState } from './workspace'
import { createTerminalsStore, type TerminalsState } from './terminals'
import { createUiStore, type UiState } from './ui'

export function createAppStores(client: Client, win?: Parameters<typeof createUiStore>[0]) {
  const sessions = createSessionsStore(client)
  const ui = createUiStore(win)
  client.onConnection((up) => ui.setState({ connected: up }))
  return {
    client,
    sessions,
    servers: createServersStore(client),
    settings: createSettingsStore(client),
    events: createEventsStore(client),
    snapshots: createSnapshotsStore(client),
    browser: createSnapshotBrowserStore(client),
    workspace: createWorkspaceStore(client),
    terminals: createTerminalsStore(client, sessions),
    ui,
  }
}
export type AppStores = ReturnType<typeof createAppStores>

export const StoresContext = createContext<AppStores | null>(null)

export function useStores(): AppStores {
  const s = useContext(StoresContext)
  if (!s) throw new Error('the stores are not provided')
  return s
}

export const useSessions = <T>(selector: (s: SessionsState) => T): T => useStore(useStores().sessions, selector)
export const useServers = <T>(selector: (s: ServersState) => T): T => useStore(useStores().servers, selector)
export const useSettings = <T>(selector: (s: SettingsState) => T): T => useStore(useStores().settings, selector)
export const useEvents = <T>(selector: (s: EventsState) => T): T => useStore(useStores().events, selector)
export const useTerminals = <T>(selector: (s: TerminalsState) => T): T => useStore(useStores().terminals.store, selector)
export const useSnapshots = <T>(selector: (s: SnapshotsState) => T): T => useStore(useStores().snapshots, selector)
export const useBrowser = <T>(selector: (s: SnapshotBrowserState) => T): T => useStore(useStores().browser, selector)
export const useWorkspace = <T>(selector: (s: WorkspaceState) => T): T => useStore(useStores().workspace, selector)
export const useUi = <T>(selector: (s: UiState) => T): T => useStore(useStores().ui, selector)
