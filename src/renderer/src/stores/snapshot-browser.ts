// The snapshot browser of one session: its timeline and lineage, the snapshot selected, and what
// changed (the core lists it from the server, a page at a time; one file's text diff on demand).
import { createStore } from 'zustand/vanilla'
import type { DiffEntry, FileDiff, Timeline } from '../../../shared/contract/snapshot-browser'
import type { Client } from '../api/client'

/** Files listed per page of a diff. */
export const DIFF_PAGE = 1000

export interface DiffState {
  /** the pair this list belongs to ("" from: the checkpoint before) */
  from: string
  to: string
  label: string
  total: number
  items: DiffEntry[]
  next: number | null
  loading: boolean
  error: unknown
}

export interface SnapshotBrowserState {
  session: string | null
  timeline: Timeline | null
  loading: boolean
  error: unknown
  selected: string | null
  /** a snapshot to select once the timeline that holds it is shown */
  pending: string | null
  /** the snapshot compared against ("" for the checkpoint before the selected one) */
  compareWith: string
  diff: DiffState | null
  file: { path: string; loading: boolean; result: FileDiff | null; error: unknown } | null
  open(session: string): Promise<void>
  reload(): Promise<void>
  select(id: string | null): void
  want(id: string): void
  compare(from: string): void
  more(): Promise<void>
  showFile(path: string | null): Promise<void>
}

export function createSnapshotBrowserStore(client: Client) {
  let gen = 0
  let diffGen = 0
  const store = createStore<SnapshotBrowserState>()((set, get) => {
    const loadDiff = async (offset: number) => {
      const { selected, compareWith } = get()
      if (!selected) return set({ diff: null })
      const g = offset === 0 ? ++diffGen : diffGen
      const base = get().diff
      set({
        diff: offset === 0 || !base ? { from: compareWith, to: selected, label: '', total: 0, items: [], next: null, loading: true, error: null } : { ...base, loading: true },
      })
      try {
        const page = await client.call('snapshot.diff', { to: selected, ...(compareWith ? { from: compareWith } : {}), offset, limit: DIFF_PAGE })
        if (g !== diffGen) return
        const prev = offset === 0 ? [] : (get().diff?.items ?? [])
        set({ diff: { from: compareWith, to: selected, label: page.from, total: page.total, items: [...prev, ...page.items], next: page.next, loading: false, error: null } })
      } catch (e) {
        if (g === diffGen) set({ diff: { ...(get().diff ?? { from: compareWith, to: selected, label: '', total: 0, items: [], next: null }), loading: false, error: e } })
      }
    }
    return {
      session: null,
      timeline: null,
      loading: false,
      error: null,
      selected: null,
      pending: null,
      compareWith: '',
      diff: null,
      file: null,
      async open(session) {
        if (get().session !== session) set({ session, timeline: null, selected: null, compareWith: '', diff: null, file: null })
        await get().reload()
      },
      async reload() {
        const session = get().session
        if (!session) return
        const g = ++gen
        set({ loading: true })
        try {
          const timeline = await client.call('snapshot.timeline', { session })
          if (g !== gen) return
          const ids = timeline.items.map((s) => s.id)
          const { pending, selected } = get()
          const keep = [pending, selected].find((id) => id && ids.includes(id)) ?? null
          set({ timeline, loading: false, error: null, pending: null })
          // the newest checkpoint is selected when nothing (or a snapshot now gone) was
          get().select(keep ?? ids.at(-1) ?? null)
        } catch (e) {
          if (g === gen) set({ loading: false, error: e })
        }
      },
      select(id) {
        if (id === get().selected && get().diff) return
        set({ selected: id, compareWith: '', file: null })
        void loadDiff(0)
      },
      want(id) {
        set({ pending: id })
      },
      compare(from) {
        set({ compareWith: from, file: null })
        void loadDiff(0)
      },
      more: () => (get().diff?.next != null ? loadDiff(get().diff!.next!) : Promise.resolve()),
      async showFile(path) {
        const { selected, compareWith } = get()
        if (!path || !selected) return set({ file: null })
        set({ file: { path, loading: true, result: null, error: null } })
        try {
          const result = await client.call('snapshot.diffFile', { to: selected, ...(compareWith ? { from: compareWith } : {}), path })
          if (get().file?.path === path) set({ file: { path, loading: false, result, error: null } })
        } catch (e) {
          if (get().file?.path === path) set({ file: { path, loading: false, result: null, error: e } })
        }
      },
    }
  })
  // a new or changed checkpoint of the session shown: the timeline again
  client.on('snapshot.changed', (snap) => {
    const t = store.getState().timeline
    if (t && snap.sessionId === t.session.id) void store.getState().reload()
  })
  client.onReconnect(() => void store.getState().reload())
  return store
}
export type SnapshotBrowserStore = ReturnType<typeof createSnapshotBrowserStore>
