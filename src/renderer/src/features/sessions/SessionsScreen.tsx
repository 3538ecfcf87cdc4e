import { useVirtualizer } from '@tanstack/react-virtual'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import type { SessionSummary } from '../../../../shared/models'
import { SESSION_STATES } from '../../../../shared/session-values'
import { EmptyState } from '../../components/EmptyState'
import { MachineChecks } from '../settings/MachineChecks'
import { ProblemLine } from '../../components/ProblemLine'
import { ServerFilter } from '../../components/ServerFilter'
import { NARROW, onControl, typingIn, useMedia, useNow } from '../../lib/hooks'
import { useServers, useSessions, useStores, useUi, useWorkspace } from '../../stores/app-stores'
import { visibleSessions, type StateFilter } from '../../stores/sessions'
import { finishSession, sessionActions } from './session-actions'
import { SessionRow, type RowActions } from './SessionRow'

/** a row with one line of detail under the name; rows with more are measured */
const ROW_HEIGHT = 55
/** shorter lists are all in the page (cheap, and found by the browser's own search) */
const VIRTUAL_FROM = 150

const STATE_FILTERS: Array<{ value: StateFilter; label: string }> = [
  { value: 'live', label: 'Live' },
  { value: 'all', label: 'All' },
  ...SESSION_STATES.map((s) => ({ value: s, label: s[0]!.toUpperCase() + s.slice(1) })),
]

export function SessionsScreen() {
  const stores = useStores()
  const byId = useSessions((s) => s.byId)
  const filter = useSessions((s) => s.filter)
  const loaded = useSessions((s) => s.loaded)
  const loadError = useSessions((s) => s.loadError)
  const progress = useSessions((s) => s.progress)
  const servers = useServers((s) => s.list)
  const navigate = useUi((s) => s.navigate)
  const openDialog = useUi((s) => s.openDialog)
  const now = useNow()
  const narrow = useMedia(NARROW)
  const search = useRef<HTMLInputElement>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const workspace = useWorkspace((s) => s.byId)

  const visible = useMemo(() => visibleSessions(byId, filter), [byId, filter])
  const total = useMemo(() => Object.keys(byId).length, [byId])

  // only the rows on screen are in the page: a home with a thousand sessions paints as fast as one
  // with ten, and the clock that ages the rows re-renders a screenful, not the whole list
  const table = useRef<HTMLTableElement>(null)
  const [scrollMargin, setScrollMargin] = useState(0)
  const virtual = visible.length >= VIRTUAL_FROM
  const rows = useVirtualizer({
    enabled: virtual,
    count: visible.length,
    getScrollElement: () => table.current?.closest<HTMLElement>('.main') ?? null,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (i) => visible[i]!.id,
    overscan: 8,
    scrollMargin,
  })
  useLayoutEffect(() => {
    const t = table.current
    const main = t?.closest<HTMLElement>('.main')
    if (t && main) setScrollMargin(t.tBodies[0]!.getBoundingClientRect().top - main.getBoundingClientRect().top + main.scrollTop)
  }, [loaded, total === 0, visible.length === 0, loadError])
  const onScreen = virtual ? rows.getVirtualItems() : visible.map((s, index) => ({ index, key: s.id, start: 0, end: 0 }))
  const padTop = virtual && onScreen.length ? onScreen[0]!.start - scrollMargin : 0
  const padBottom = virtual && onScreen.length ? rows.getTotalSize() - (onScreen[onScreen.length - 1]!.end - scrollMargin) : 0

  const actions: RowActions = useMemo(
    () => ({
      open: (s: SessionSummary) => navigate({ screen: 'session', id: s.id }),
      select: (id: string) => setSelected(id),
      verbs: (s: SessionSummary) => sessionActions(stores, s, servers),
    }),
    [navigate, stores, servers],
  )

  // a mark once the list is first on screen (two frames: the one with the rows has been painted);
  // bench/ui reads it as the time from page load to the list painted
  useEffect(() => {
    if (!loaded || visible.length === 0 || performance.getEntriesByName('berth:sessions-painted').length) return
    requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('berth:sessions-painted', { detail: { rows: visible.length } })))
  }, [loaded, visible.length])

  // whether sessions with a workspace hold unsaved work (asked in the background, cached)
  useEffect(() => stores.workspace.getState().want(visible.slice(0, 200)), [stores, visible])

  const onKey = useCallback(
    (e: KeyboardEvent) => {
      if (e.defaultPrevented || typingIn(e.target) || e.ctrlKey || e.metaKey || e.altKey || stores.ui.getState().dialog || stores.ui.getState().confirm) return
      // Enter and the arrows on a focused button or menu are that control's (a menu opens, a row's
      // Pause runs): the list's selection stays, and no session opens besides
      if ((e.key === 'Enter' || e.key.startsWith('Arrow')) && onControl(e.target)) return
      const i = visible.findIndex((s) => s.id === selected)
      const selectAt = (index: number) => {
        setSelected(visible[index]?.id ?? null)
        if (virtual) rows.scrollToIndex(index, { align: 'auto' })
      }
      if (e.key === '/') {
        e.preventDefault()
        search.current?.focus()
      } else if (e.key === 'j' || e.key === 'ArrowDown') {
        e.preventDefault()
        selectAt(Math.min(visible.length - 1, i + 1))
      } else if (e.key === 'k' || e.key === 'ArrowUp') {
        e.preventDefault()
        selectAt(Math.max(0, i - 1))
      } else if (e.key === 'Enter' && i >= 0) {
        actions.open(visible[i]!)
      } else if (e.key === 'f' && i >= 0) {
        void finishSession(stores, visible[i]!)
      } else if (e.key === 'p' && i >= 0) {
        void actions.verbs(visible[i]!).primary?.run()
      }
    },
    [visible, selected, actions, stores, rows, virtual],
  )
  useEffect(() => {
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [onKey])

  const setFilter = stores.sessions.getState().setFilter
  return (
    <section className="screen" aria-labelledby="sessions-title">
      <div className="screen-head">
        <h1 id="sessions-title">Sessions</h1>
        <div className="toolbar">
          <input ref={search} type="search" placeholder="Filter by name, id, image  ( / )" aria-label="filter sessions" value={filter.text} onChange={(e) => setFilter({ text: e.target.value })} />
          <select aria-label="state" value={filter.state} onChange={(e) => setFilter({ state: e.target.value as StateFilter })}>
            {STATE_FILTERS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
          <ServerFilter label="server" value={filter.server} all="all" onChange={(server) => setFilter({ server })} />
          <button className="primary" onClick={() => openDialog('new-session')} title="New session (n)">
            New session
          </button>
        </div>
      </div>
      {loadError ? <ProblemLine error={loadError} onRetry={() => void stores.sessions.getState().load()} /> : null}
      {!loaded ? (
        <p className="muted">Loading sessions…</p>
      ) : total === 0 && !loadError ? (
        <>
          <EmptyState
            title="No sessions yet"
            action={
              <button className="primary" onClick={() => openDialog('new-session')}>
                New session
              </button>
            }
          >
            A session is a sandbox container on your laptop or a connected server. Create one from an image to get a terminal in it.
          </EmptyState>
          {/* the first run: what Berth found on this machine, and what to do about it */}
          <MachineChecks title="Berth on this machine" />
        </>
      ) : visible.length === 0 ? (
        <EmptyState title="No session matches these filters" action={<button onClick={() => stores.sessions.getState().clearFilter()}>Clear filters</button>}>
          {total} session{total === 1 ? '' : 's'} in all.
        </EmptyState>
      ) : (
        <table ref={table} className="list sessions" aria-label="sessions" aria-rowcount={visible.length + 1} data-rows={visible.length}>
          {/* fixed columns: the widths must not change as rows scroll in and out */}
          <colgroup>
            <col />
            {!narrow && <col style={{ width: 110 }} />}
            <col style={{ width: 170 }} />
            {!narrow && <col style={{ width: 80 }} />}
            {!narrow && <col style={{ width: 230 }} />}
            <col style={{ width: 90 }} />
            <col style={{ width: 200 }} />
          </colgroup>
          <thead>
            <tr>
              <th>Name</th>
              <th className="wide-only">Server</th>
              <th>State</th>
              <th className="wide-only">Age</th>
              <th className="wide-only">Meter</th>
              <th>
                <span className="visually-hidden">Unsaved work</span>
              </th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && <Spacer height={padTop} />}
            {onScreen.map(({ index, key }) => {
              const s = visible[index]!
              return (
                <SessionRow
                  key={key}
                  index={index}
                  measure={virtual ? rows.measureElement : undefined}
                  session={s}
                  progress={progress[s.id]}
                  selected={s.id === selected}
                  unsaved={s.workspace ? (workspace[s.id]?.status ? !workspace[s.id]!.status!.saved : undefined) : false}
                  now={now}
                  actions={actions}
                />
              )
            })}
            {padBottom > 0 && <Spacer height={padBottom} />}
          </tbody>
        </table>
      )}
    </section>
  )
}

/** Stands for the rows scrolled out of the page, so the scrollbar is the whole list's. */
function Spacer({ height }: { height: number }) {
  return (
    <tr aria-hidden="true" className="spacer">
      <td colSpan={7} style={{ height }} />
    </tr>
  )
}
