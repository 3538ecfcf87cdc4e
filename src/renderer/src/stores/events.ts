// A session's events log, loaded when its view opens and kept live by event.appended.
import { createStore } from 'zustand/vanilla'
import type { EventRecord } from '../../../shared/models'
import type { Client } from '../api/client'

const KEEP = 500

export interface EventsState {
  bySession: Record<string, EventRecord[]>
  load(sessionId: string): Promise<void>
}

export function createEventsStore(client: Client) {
  const store = createStore<EventsState>()((set, get) => ({
    bySession: {},
    async load(sessionId) {
      const list = await client.call('session.events', { id: sessionId, limit: KEEP })
      set({ bySession: { ...get().bySession, [sessionId]: list } })
    },
  }))
  client.on('event.appended', (e) => {
    if (!e.sessionId) return
    const { bySession } = store.getState()
    const cur = bySession[e.sessionId]
    if (!cur) return // not watched: loaded in full when its view opens
    if (cur.some((x) => x.seq === e.seq)) return
    store.setState({ bySession: { ...bySession, [e.sessionId]: [...cur, e].slice(-KEEP) } })
  })
  client.onReconnect(() => {
    for (const id of Object.keys(store.getState().bySession)) void store.getState().load(id).catch(() => undefined)
  })
  return store
}
export type EventsStore = ReturnType<typeof createEventsStore>
