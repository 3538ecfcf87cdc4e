// Whether a session's workspace holds work that was never saved. Asking runs git in the session,
// so answers are kept for a while and asked again when the session changes.
import { createStore } from 'zustand/vanilla'
import type { CallResult } from '../../../shared/contract'
import type { SessionSummary } from '../../../shared/models'
import type { Client } from '../api/client'
import { newOp } from './sessions'

export type WorkspaceStatus = CallResult<'workspace.status'>
const FRESH_MS = 30_000
const READABLE = ['running', 'paused']

export interface WorkspaceState {
  byId: Record<string, { status?: WorkspaceStatus; error?: unknown; at: number }>
  /** asks for the sessions whose answer is missing or old, two at a time */
  want(sessions: readonly Pick<SessionSummary, 'id' | 'state' | 'workspace'>[]): void
  refresh(id: string): Promise<WorkspaceStatus | undefined>
  save(id: string, message?: string): Promise<CallResult<'workspace.save'>>
}

export function createWorkspaceStore(client: Client) {
  const inFlight = new Set<string>()
  const queue: string[] = []
  let running = 0
  const store = createStore<WorkspaceState>()((set, get) => {
    const pump = () => {
      while (running < 2 && queue.length) {
        const id = queue.shift()!
        running++
        void get()
          .refresh(id)
          .finally(() => {
            running--
            pump()
          })
      }
    }
    return {
      byId: {},
      want(sessions) {
        const now = Date.now()
        for (const s of sessions) {
          if (!s.workspace || !READABLE.includes(s.state) || inFlight.has(s.id) || queue.includes(s.id)) continue
          const cur = get().byId[s.id]
          if (cur && now - cur.at < FRESH_MS) continue
          queue.push(s.id)
        }
        pump()
      },
      async refresh(id) {
        inFlight.add(id)
        try {
          const status = await client.call('workspace.status', { id })
          set({ byId: { ...get().byId, [id]: { status, at: Date.now() } } })
          return status
        } catch (error) {
          set({ byId: { ...get().byId, [id]: { error, at: Date.now() } } })
          return undefined
        } finally {
          inFlight.delete(id)
        }
      },
      async save(id, message) {
        const r = await client.call('workspace.save', { id, message: message || undefined, op: newOp('save') })
        void get().refresh(id)
        return r
      },
    }
  })
  // a change to the session may have changed its files: the next look asks again
  client.on('session.changed', (s) => {
    const cur = store.getState().byId[s.id]
    if (cur) store.setState({ byId: { ...store.getState().byId, [s.id]: { ...cur, at: 0 } } })
  })
  return store
}
export type WorkspaceStore = ReturnType<typeof createWorkspaceStore>
