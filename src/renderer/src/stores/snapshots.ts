// Snapshots: a page at a time, newest first, filtered by session, server, name and whether
// automatic checkpoints are included; kept live by snapshot.changed.
import { createStore } from 'zustand/vanilla'
import type { CallArgs, CallResult } from '../../../shared/contract'
import type { Progress, Session, Snapshot } from '../../../shared/models'
import { CallError, type Client } from '../api/client'
import { newOp } from './sessions'

export interface SnapshotFilter {
  session: string
  server: string
  name: string
  /** include the automatic checkpoints (pauses, seals) */
  auto: boolean
}
export const DEFAULT_SNAPSHOT_FILTER: SnapshotFilter = { session: '', server: '', name: '', auto: true }
const PAGE = 50

export function snapshotMatches(s: Snapshot, f: SnapshotFilter): boolean {
  if (f.session && s.sessionId !== f.session) return false
  if (f.server && s.server !== f.server) return false
  if (f.name && !s.name.toLowerCase().includes(f.name.toLowerCase())) return false
  if (!f.auto && s.auto) return false
  return true
}

export interface SnapshotsState {
  items: Snapshot[]
  next: string | null
  loading: boolean
  loaded: boolean
  loadError: unknown
  filter: SnapshotFilter
  setFilter(patch: Partial<SnapshotFilter>): void
  load(): Promise<void>
  more(): Promise<void>
  remove(id: string): Promise<boolean>
  test(id: string): Promise<CallResult<'snapshot.test'>>
  take(sessionId: string, name?: string): Promise<Snapshot>
  /** a session from a snapshot; onProgress hears the core's progress events of this one call */
  createFrom(snapshot: Snapshot, args: { server?: string | undefined; name?: string | undefined }, onProgress?: (p: Progress) => void): Promise<Session>
  rewind(sessionId: string, to: string): Promise<CallResult<'session.rewind'>>
}

export function createSnapshotsStore(client: Client) {
  let generation = 0
  const query = (f: SnapshotFilter): CallArgs<'snapshot.list'> => ({
    limit: PAGE,
    ...(f.session ? { session: f.session } : {}),
    ...(f.server ? { server: f.server } : {}),
    ...(f.name && /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(f.name) ? { name: f.name } : {}),
    ...(f.auto ? {} : { auto: false }),
  })
  const store = createStore<SnapshotsState>()((set, get) => ({
    items: [],
    next: null,
    loading: false,
    loaded: false,
    loadError: null,
    filter: DEFAULT_SNAPSHOT_FILTER,
    setFilter(patch) {
      set({ filter: { ...get().filter, ...patch } })
      void get().load()
    },
    async load() {
      const g = ++generation
      set({ loading: true })
      try {
        const page = await client.call('snapshot.list', query(get().filter))
        if (g !== generation) return
        // a name typed in part filters here too (the core's name filter is exact)
        set({ items: page.items.filter((s) => snapshotMatches(s, get().filter)), next: page.next, loaded: true, loading: false, loadError: null })
      } catch (e) {
        if (g === generation) set({ loading: false, loaded: true, loadError: e })
      }
    },
    async more() {
      const { next, loading } = get()
      if (!next || loading) return
      const g = generation
      set({ loading: true })
      try {
        const page = await client.call('snapshot.list', { ...query(get().filter), next })
        if (g !== generation) return
        const seen = new Set(get().items.map((s) => s.id))
        set({ items: [...get().items, ...page.items.filter((s) => !seen.has(s.id) && snapshotMatches(s, get().filter))], next: page.next, loading: false })
      } catch (e) {
        if (g === generation) set({ loading: false, loadError: e })
      }
    },
    async remove(id) {
      try {
        const r = await client.call('snapshot.remove', { id })
        set({ items: get().items.filter((s) => s.id !== id) })
        return r.deleted
      } catch (e) {
        if (e instanceof CallError && e.code === 'not_found') set({ items: get().items.filter((s) => s.id !== id) })
        throw e
      }
    },
    test: (id) => client.call('snapshot.test', { id, op: newOp('test') }),
    take: (id, name) => client.call('snapshot.create', { id, name: name || undefined, op: newOp('snapshot') }),
    async createFrom(snapshot, args, onProgress) {
      const op = newOp('create')
      const off = onProgress ? client.on('progress', (p) => p.op === op && onProgress(p)) : undefined
      try {
        return await client.call('session.create', { from: snapshot.id, server: args.server || undefined, name: args.name || undefined, op })
      } finally {
        off?.()
      }
    },
    rewind: (sessionId, to) => client.call('session.rewind', { id: sessionId, to, op: newOp('rewind') }),
  }))
  client.on('snapshot.changed', (snap) => {
    const { items, filter } = store.getState()
    const i = items.findIndex((s) => s.id === snap.id)
    if (i >= 0) store.setState({ items: items.map((s) => (s.id === snap.id ? snap : s)) })
    else if (snapshotMatches(snap, filter)) store.setState({ items: [snap, ...items] })
  })
  client.onReconnect(() => void store.getState().load())
  return store
}
export type SnapshotsStore = ReturnType<typeof createSnapshotsStore>
