// Servers: local and connected ones, their round-trip times, and adding one in two steps:
// probe (read the host key's fingerprint; nothing stored), then add with that fingerprint
// confirmed by the user.
import { createStore } from 'zustand/vanilla'
import type { CallResult } from '../../../shared/contract'
import type { HostKeyProbe, Server, ServerTest } from '../../../shared/models'
import type { Client } from '../api/client'

export interface ServerHealth {
  test?: ServerTest
  error?: unknown
  testing: boolean
  at: number
}

export interface AddDraft {
  name: string
  url: string
  identity?: string | undefined
}

export interface ServersState {
  list: Server[]
  loaded: boolean
  loadError: unknown
  health: Record<string, ServerHealth>
  load(): Promise<void>
  test(name: string): Promise<void>
  testAll(): Promise<void>
  probe(draft: AddDraft): Promise<HostKeyProbe>
  add(draft: AddDraft, fingerprint: string): Promise<Server>
  /** forgets the server; says what became of Berth's helper container there */
  remove(name: string): Promise<CallResult<'server.remove'>>
  setRate(name: string, ratePerHour: number): Promise<void>
}

export function createServersStore(client: Client) {
  const store = createStore<ServersState>()((set, get) => ({
    list: [],
    loaded: false,
    loadError: null,
    health: {},
    async load() {
      try {
        set({ list: await client.call('server.list', {}), loaded: true, loadError: null })
      } catch (e) {
        set({ loaded: true, loadError: e })
      }
    },
    async test(name) {
      set({ health: { ...get().health, [name]: { ...get().health[name], testing: true, at: Date.now() } } })
      try {
        const test = await client.call('server.test', { name })
        set({ health: { ...get().health, [name]: { test, testing: false, at: Date.now() } } })
      } catch (error) {
        set({ health: { ...get().health, [name]: { error, testing: false, at: Date.now() } } })
      }
    },
    async testAll() {
      await Promise.all(get().list.map((s) => get().test(s.name)))
    },
    probe: (draft) => client.call('server.probe', { url: draft.url, identity: draft.identity || undefined }),
    async add(draft, fingerprint) {
      const server = await client.call('server.add', { name: draft.name, url: draft.url, identity: draft.identity || undefined, acceptHostKey: fingerprint })
      set({ list: [...get().list.filter((s) => s.name !== server.name), server] })
      void get().test(server.name)
      return server
    },
    async setRate(name, ratePerHour) {
      const server = await client.call('server.setRate', { name, ratePerHour })
      set({ list: get().list.map((s) => (s.name === name ? server : s)) })
    },
    async remove(name) {
      const r = await client.call('server.remove', { name })
      const { [name]: _gone, ...health } = get().health
      set({ list: get().list.filter((s) => s.name !== name), health })
      return r
    },
  }))
  client.on('server.changed', (s) => {
    const list = store.getState().list
    const i = list.findIndex((x) => x.name === s.name)
    store.setState({ list: i >= 0 ? list.map((x) => (x.name === s.name ? s : x)) : [...list, s] })
  })
  client.onReconnect(() => void store.getState().load())
  return store
}
export type ServersStore = ReturnType<typeof createServersStore>
