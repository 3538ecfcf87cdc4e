import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { SESSION_STATES, type Session } from '../../../../shared/models'
import { EmptyState } from '../../components/EmptyState'
import { ProblemLine } from '../../components/ProblemLine'
import { ServerFilter } from '../../components/ServerFilter'
import { typingIn, useNow } from '../../lib/hooks'
import { useServers, useSessions, useStores, useUi, useWorkspace } from '../../stores/app-stores'
import { visibleSessions, type StateFilter } from '../../stores/sessions'
import { finishSession, sessionActions } from './session-actions'
import { SessionRow, type RowActions } from './SessionRow'

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
  const search = useRef<HTMLInputElement>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const workspace = useWorkspace((s) => s.byId)

  const visible = useMemo(() => visibleSessions(byId, filter), [byId, filter])
  const total = useMemo(() => Object.keys(byId).length, [byId])

  const actions: RowActions = useMemo(
    () => ({
      open: (s: Session) => navigate({ screen: 'session', id: s.id }),
      select: (id: string) => setSelected(id),
      verbs: (s: Session) => sessionActions(stores, s, servers),
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
      if (typingIn(e.target) || e.ctrlKey || e.metaKey || e.altKey || stores.ui.getState().dialog || stores.ui.getState().confirm) return
      const i = visible.findIndex((s) => s.id === selected)
      if (e.key === '/') {
        e.preventDefault()
        search.current?.focus()
      } else if (e.key === 'j' || e.key === 'ArrowDown') {
        e.preventDefault()
        setSelected(visible[Math.min(visible.length - 1, i + 1)]?.id ?? null)
      } else if (e.key === 'k' || e.key === 'ArrowUp') {
        e.preventDefault()
        setSelected(visible[Math.max(0, i - 1)]?.id ?? null)
      } else if (e.key === 'Enter' && i >= 0) {
        actions.open(visible[i]!)
      } else if (e.key === 'f' && i >= 0) {
        void finishSession(stores, visible[i]!)
      } else if (e.key === 'p' && i >= 0) {
        actions.verbs(visible[i]!).primary?.run()
      }
    },
    [visible, selected, actions, stores],
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
      ) : visible.length === 0 ? (
        <EmptyState title="No session matches these filters" action={<button onClick={() => stores.sessions.getState().clearFilter()}>Clear filters</button>}>
          {total} session{total === 1 ? '' : 's'} in all.
        </EmptyState>
      ) : (
        <table className="list sessions" aria-label="sessions">
          <thead>
            <tr>
              <th>Name</th>
              <th>Server</th>
              <th>State</th>
              <th>Age</th>
              <th>Meter</th>
              <th>
                <span className="visually-hidden">Unsaved work</span>
              </th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {visible.map((s) => (
              <SessionRow
                key={s.id}
                session={s}
                progress={progress[s.id]}
                selected={s.id === selected}
                unsaved={s.workspace ? (workspace[s.id]?.status ? !workspace[s.id]!.status!.saved : undefined) : false}
                now={now}
                actions={actions}
              />
            ))}
          </tbody>
        </table>
      )}
    </section>
  )
}
