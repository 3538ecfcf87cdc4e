// Sessions: the list (summaries), the whole sessions that views show, kept live by session.changed and
// progress events; filters; the verbs.
import { createStore } from 'zustand/vanilla'
import type { Progress, Session, SessionState, SessionSummary } from '../../../shared/models'
import { summaryOf } from '../../../shared/session-values'
import type { CallArgs, CallResult } from '../../../shared/contract'
import type { Client } from '../api/client'

export type StateFilter = 'live' | 'all' | SessionState
export interface SessionFilter {
  state: StateFilter
  server: string | 'all'
  text: string
}

/** A session as its view shows it: the summary the list keeps, and the rest once session.show answered. */
export type ShownSession = SessionSummary & Omit<Partial<Session>, keyof SessionSummary>

export interface SessionsState {
  /** every session, as the list shows it (session.list answers summaries) */
  byId: Record<string, SessionSummary>
  /** whole sessions, for the views that show more than the list: what session.show or a change brought */
  details: Record<string, Session>
  loaded: boolean
  loadError: unknown
  /** the latest unfinished progress of each session's long work (carry, move...) */
  progress: Record<string, Progress>
  filter: SessionFilter
  load(): Promise<void>
  /** reads one whole session (and refreshes its live parts: listening ports) */
  show(id: string): Promise<Session>
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

export function matches(s: SessionSummary, f: SessionFilter): boolean {
  if (f.state === 'live' ? !LIVE_STATES.includes(s.state) : f.state !== 'all' && s.state !== f.state) return false
  if (f.server !== 'all' && s.server !== f.server) return false
  if (f.text) {
    const t = f.text.toLowerCase()
    if (!s.name.toLowerCase().includes(t) && !s.id.includes(t) && !s.route.includes(t) && !s.image.toLowerCase().includes(t)) return false
  }
  return true
}

/** Newest first; the list view memoizes on byId and filter. */
export function visibleSessions(byId: Record<string, SessionSummary>, f: SessionFilter): SessionSummary[] {
  return Object.values(byId)
    .filter((s) => matches(s, f))
    .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id))
}

/** The store after a whole session arrived: its summary in the list, itself in details. */
const withSession = (st: SessionsState, s: Session): Pick<SessionsState, 'byId' | 'details'> => ({
  byId: { ...st.byId, [s.id]: summaryOf(s) },
  details: { ...st.details, [s.id]: s },
})

export function createSessionsStore(client: Client) {
  const store = createStore<SessionsState>()((set, get) => ({
    byId: {},
    details: {},
    loaded: false,
    loadError: null,
    progress: {},
    filter: DEFAULT_FILTER,
    async load() {
      try {
        const list = await client.call('session.list', {})
        const byId: Record<string, SessionSummary> = {}
        for (const s of list) byId[s.id] = s
        set({ byId, loaded: true, loadError: null })
      } catch (e) {
        set({ loaded: true, loadError: e })
      }
    },
    async show(id) {
      const s = await client.call('session.show', { id })
      set(withSession(get(), s))
      return s
    },
    setFilter: (patch) => set({ filter: { ...get().filter, ...patch } }),
    clearFilter: () => set({ filter: DEFAULT_FILTER }),
    async create(args) {
      const s = await client.call('session.create', args)
      set(withSession(get(), s))
      return s
    },
    async finish(id, force) {
      const s = await client.call('session.finish', force ? { id, force } : { id })
      set(withSession(get(), s))
      return s
    },
    pause: (id, memory = true) => client.call('session.pause', { id, memory, op: newOp('pause') }),
    resume: (id) => client.call('session.resume', { id, op: newOp('resume') }),
    move: (id, to, resume) => client.call('session.move', { id, to, resume, op: newOp('move') }),
    async restart(id) {
      const s = await client.call('session.restart', { id, op: newOp('restart') })
      set(withSession(get(), s))
      return s
    },
    async fork(id, count, name) {
      const r = await client.call('session.fork', { id, count, name: name || undefined, op: newOp('fork') })
      let next: Pick<SessionsState, 'byId' | 'details'> = get()
      for (const f of r.forks) if (f.ok) next = withSession({ ...get(), ...next }, f.session)
      set(next)
      return r
    },
    async configure(args) {
      const s = await client.call('session.configure', args)
      set(withSession(get(), s))
      return s
    },
  }))
  client.on('session.changed', (s) => {
    const st = store.getState()
    const progress = st.progress
    const next: Partial<SessionsState> = withSession(st, s)
    // work that ended leaves no bar behind
    if (progress[s.id] && !['creating', 'moving', 'resuming', 'pausing'].includes(s.state)) {
      const { [s.id]: _gone, ...rest } = progress
      next.progress = rest
    }
    store.setState(next)
  })
  client.on('meter.sampled', ({ meters }) => {
    const byId = { ...store.getState().byId }
    for (const { sessionId, meter } of meters) {
      const s = byId[sessionId]
      if (s) byId[sessionId] = { ...s, meter }
    }
    store.setState({ byId })
  })
  client.on('progress', (p) => {
    if (!p.sessionId) return
    const { progress } = store.getState()
    if (p.done) {
      const { [p.sessionId]: _gone, ...rest } = progress
      store.setState({ progress: rest })
    } else store.setState({ progress: { ...progress, [p.sessionId]: p } })
  })
  client.onReconnect(() => {
    const { load, show, details } = store.getState()
    void load()
    // changes missed while the connection was down: the whole sessions shown are read again
    for (const id of Object.keys(details)) void show(id).catch(() => undefined)
  })
  return store
}
export type SessionsStore = ReturnType<typeof createSessionsStore>
