// Sessions: the list, kept live by session.changed and progress events; filters; the verbs.
import { createStore } from 'zustand/vanilla'
import type { Progress, Session, SessionState } from '../../../shared/models'
import type { CallArgs, CallResult } from '../../../shared/contract'
import type { Client } from '../api/client'

export type StateFilter = 'live' | 'all' | SessionState
export interface SessionFilter {
  state: StateFilter
  server: string | 'all'
  text: string
}

export interface SessionsState {
  byId: Record<string, Session>
  loaded: boolean
  loadError: unknown
  /** the latest unfinished progress of each session's long work (carry, move...) */
  progress: Record<string, Progress>
  filter: SessionFilter
  load(): Promise<void>
  setFilter(patch: Partial<SessionFilter>): void
  clearFilter(): void
  create(args: CallArgs<'session.create'>): Promise<Session>
  finish(id: string, force?: boolean): Promise<Session>
  pause(id: string, memory?: boolean): Promise<CallResult<'session.pause'>>
  resume(id: string): Promise<CallResult<'session.resume'>>
  /** resume on another server: move it there (memory, disk, workspace), then resume */
  move(id: string, to: string, resume: boolean): Promise<CallResult<'session.move'>>
  restart(id: string): Promise<Session>
  fork(id: string, count: number, name?: string): Promise<CallResult<'session.fork'>>
  configure(args: CallArgs<'session.configure'>): Promise<Session>
}

/** A client-chosen id that the progress events of one verb carry. */
export const newOp = (verb: string) => `${verb}-${Math.random().toString(36).slice(2, 10)}`

export const LIVE_STATES: readonly SessionState[] = ['creating', 'running', 'pausing', 'paused', 'resuming', 'moving', 'restarting', 'finishing', 'failed']
export const DEFAULT_FILTER: SessionFilter = { state: 'live', server: 'all', text: '' }

export function matches(s: Session, f: SessionFilter): boolean {
  if (f.state === 'live' ? !LIVE_STATES.includes(s.state) : f.state !== 'all' && s.state !== f.state) return false
  if (f.server !== 'all' && s.server !== f.server) return false
  if (f.text) {
    const t = f.text.toLowerCase()
    if (!s.name.toLowerCase().includes(t) && !s.id.includes(t) && !s.route.includes(t) && !s.image.toLowerCase().includes(t)) return false
  }
  return true
}

/** Newest first; the list view memoizes on byId and filter. */
export function visibleSessions(byId: Record<string, Session>, f: SessionFilter): Session[] {
  return Object.values(byId)
    .filter((s) => matches(s, f))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
}

export function createSessionsStore(client: Client) {
  const store = createStore<SessionsState>()((set, get) => ({
    byId: {},
    loaded: false,
    loadError: null,
    progress: {},
    filter: DEFAULT_FILTER,
    async load() {
      try {
        const list = await client.call('session.list', {})
        const byId: Record<string, Session> = {}
        for (const s of list) byId[s.id] = s
        set({ byId, loaded: true, loadError: null })
      } catch (e) {
        set({ loaded: true, loadError: e })
      }
    },
    setFilter: (patch) => set({ filter: { ...get().filter, ...patch } }),
    clearFilter: () => set({ filter: DEFAULT_FILTER }),
    async create(args) {
      const s = await client.call('session.create', args)
      set({ byId: { ...get().byId, [s.id]: s } })
      return s
    },
    async finish(id, force) {
      const s = await client.call('session.finish', force ? { id, force } : { id })
      set({ byId: { ...get().byId, [s.id]: s } })
      return s
    },
    pause: (id, memory = true) => client.call('session.pause', { id, memory, op: newOp('pause') }),
    resume: (id) => client.call('session.resume', { id, op: newOp('resume') }),
    move: (id, to, resume) => client.call('session.move', { id, to, resume, op: newOp('move') }),
    async restart(id) {
      const s = await client.call('session.restart', { id, op: newOp('restart') })
      set({ byId: { ...get().byId, [s.id]: s } })
      return s
    },
    async fork(id, count, name) {
      const r = await client.call('session.fork', { id, count, name: name || undefined, op: newOp('fork') })
      const byId = { ...get().byId }
      for (const f of r.forks) if (f.ok) byId[f.session.id] = f.session
      set({ byId })
      return r
    },
    async configure(args) {
      const s = await client.call('session.configure', args)
      set({ byId: { ...get().byId, [s.id]: s } })
      return s
    },
  }))
  client.on('session.changed', (s) => {
    const { byId, progress } = store.getState()
    const next: Partial<SessionsState> = { byId: { ...byId, [s.id]: s } }
    // work that ended leaves no bar behind
    if (progress[s.id] && !['creating', 'moving', 'resuming', 'pausing'].includes(s.state)) {
      const { [s.id]: _gone, ...rest } = progress
      next.progress = rest
    }
    store.setState(next)
  })
  client.on('progress', (p) => {
    if (!p.sessionId) return
    const { progress } = store.getState()
    if (p.done) {
      const { [p.sessionId]: _gone, ...rest } = progress
      store.setState({ progress: rest })
    } else store.setState({ progress: { ...progress, [p.sessionId]: p } })
  })
  client.onReconnect(() => void store.getState().load())
  return store
}
export type SessionsStore = ReturnType<typeof createSessionsStore>
