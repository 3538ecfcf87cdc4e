// Settings: one typed object; a change is sent as a patch and the core's answer is the truth.
import { createStore } from 'zustand/vanilla'
import type { Settings, SettingsPatch } from '../../../shared/settings'
import type { Client } from '../api/client'

export interface SettingsState {
  value: Settings | null
  loadError: unknown
  saving: boolean
  load(): Promise<void>
  save(patch: SettingsPatch): Promise<void>
}

export function createSettingsStore(client: Client) {
  const store = createStore<SettingsState>()((set) => ({
    value: null,
    loadError: null,
    saving: false,
    async load() {
      try {
        set({ value: await client.call('settings.get', {}), loadError: null })
      } catch (e) {
        set({ loadError: e })
      }
    },
    async save(patch) {
      set({ saving: true })
      try {
        set({ value: await client.call('settings.set', { patch }) })
      } finally {
        set({ saving: false })
      }
    },
  }))
  client.on('settings.changed', (value) => store.setState({ value }))
  client.onReconnect(() => void store.getState().load())
  return store
}
export type SettingsStore = ReturnType<typeof createSettingsStore>
