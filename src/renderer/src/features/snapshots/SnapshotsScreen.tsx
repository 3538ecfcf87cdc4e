import { useEffect, useMemo } from 'react'
import type { Snapshot } from '../../../../shared/models'
import { EmptyState } from '../../components/EmptyState'
import { Menu } from '../../components/Menu'
import { ProblemLine } from '../../components/ProblemLine'
import { ServerFilter } from '../../components/ServerFilter'
import { age, bytes } from '../../lib/format'
import { useNow } from '../../lib/hooks'
import { useBrowser, useSessions, useSnapshots, useStores } from '../../stores/app-stores'
import { SnapshotBrowser } from './SnapshotBrowser'
import { actionsFor, newSessionFrom, reasonOf } from './snapshot-actions'

export function SnapshotsScreen({ session }: { session?: string | undefined }) {
  const stores = useStores()
  const filter = useSnapshots((s) => s.filter)
  const byId = useSessions((s) => s.byId)
  const setFilter = stores.snapshots.getState().setFilter

  // the route names a session: its browser; otherwise the list of every snapshot
  useEffect(() => {
    if (session) return
    if (filter.session) setFilter({ session: '' })
    else void stores.snapshots.getState().load()
  }, [session]) // eslint-disable-line react-hooks/exhaustive-deps

  const sessionsWithSnapshots = useMemo(() => Object.values(byId).sort((a, b) => a.name.localeCompare(b.name)), [byId])
  // the browser's own answer names the session too: its heading need not wait for the list of every session
  const browsed = useBrowser((s) => s.timeline?.session)
  const focus = session ? (byId[session] ?? (browsed && (browsed.id === session || browsed.name === session) ? browsed : undefined)) : undefined

  return (
    <section className="screen" aria-labelledby="snapshots-title">
      <div className="screen-head">
        <h1 id="snapshots-title">{focus ? `Snapshots of ${focus.name}` : 'Snapshots'}</h1>
        <div className="toolbar">
          {!session && <input type="search" aria-label="filter snapshots by name" placeholder="Name" value={filter.name} onChange={(e) => setFilter({ name: e.target.value })} />}
          <select
            aria-label="session"
            value={session ?? ''}
            onChange={(e) => stores.ui.getState().navigate(e.target.value ? { screen: 'snapshots', session: e.target.value } : { screen: 'snapshots' })}
          >
            <option value="">All sessions</option>
            {sessionsWithSnapshots.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
          {!session && (
            <>
              <ServerFilter label="snapshot server" value={filter.server} all="" onChange={(server) => setFilter({ server })} />
              <label className="choice" style={{ alignItems: 'center' }}>
                <input type="checkbox" checked={filter.auto} onChange={(e) => setFilter({ auto: e.target.checked })} />
                automatic checkpoints
              </label>
            </>
          )}
          <button onClick={() => void (session ? stores.browser.getState().reload() : stores.snapshots.getState().load())}>Refresh</button>
        </div>
      </div>
      {session ? (
        <SnapshotBrowser session={session} />
      ) : (
        <SnapshotList />
      )}
    </section>
  )
}

function SnapshotList() {
  const stores = useStores()
  const items = useSnapshots((s) => s.items)
  const next = useSnapshots((s) => s.next)
  const loading = useSnapshots((s) => s.loading)
  const loaded = useSnapshots((s) => s.loaded)
  const loadError = useSnapshots((s) => s.loadError)
  const filter = useSnapshots((s) => s.filter)
  const byId = useSessions((s) => s.byId)
  const now = useNow(1000)
  return (
    <>
      {loadError ? <ProblemLine error={loadError} onRetry={() => void stores.snapshots.getState().load()} /> : null}
      {!loaded ? (
        <p className="muted">Loading snapshots…</p>
      ) : items.length === 0 ? (
        <EmptyState title={filter.name || filter.server || !filter.auto ? 'No snapshot matches these filters' : 'No snapshots yet'}>
          Every pause leaves a checkpoint here, and so does a snapshot you take from a session’s menu; start a session from one, fork it or rewind its session to it.
        </EmptyState>
      ) : (
        <>
          <table className="list" aria-label="snapshots">
            <thead>
              <tr>
                <th>Snapshot</th>
                <th>Kind</th>
                <th>Size</th>
                <th>Server</th>
                <th>Session</th>
                <th>Parent</th>
                <th>Age</th>
                <th>Tags</th>
                <th>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((snap) => {
                const parent = snap.sessionId ? byId[snap.sessionId] : undefined
                return (
                  <tr key={snap.id} data-snapshot={snap.id}>
                    <td className="name-cell">
                      {parent ? (
                        <a
                          className="mono"
                          href={`#/snapshots/${encodeURIComponent(parent.id)}`}
                          onClick={(e) => {
                            e.preventDefault()
                            stores.browser.getState().want(snap.id)
                            stores.ui.getState().navigate({ screen: 'snapshots', session: parent.id })
                          }}
                        >
                          {snap.id}
                        </a>
                      ) : (
                        <strong className="mono">{snap.id}</strong>
                      )}
                      <div className="sub">{reasonOf(snap)}</div>
                    </td>
                    <td>{snap.kind}</td>
                    <td>{bytes(snap.sizeBytes)}</td>
                    <td>{snap.server}</td>
                    <td>
                      {parent ? (
                        <a
                          href={`#/sessions/${parent.id}`}
                          onClick={(e) => {
                            e.preventDefault()
                            stores.ui.getState().navigate({ screen: 'session', id: parent.id })
                          }}
                        >
                          {parent.name}
                        </a>
                      ) : (
                        (snap.sessionName ?? '–')
                      )}
                    </td>
                    <td className="mono">{snap.parentSnapshot ?? '–'}</td>
                    <td title={snap.createdAt}>{age(snap.createdAt, now)}</td>
                    <td>
                      {snap.tags.map((t) => (
                        <span key={t} className="tag">
                          {t}
                        </span>
                      ))}
                      {snap.pinned && <span className="tag" title="kept: a fork, a named snapshot or a rewind depends on it">pinned</span>}
                      {snap.testRestored && <span className="tag" title="a test restore succeeded">tested</span>}
                    </td>
                    <td className="actions">
                      <button className="small" onClick={() => void newSessionFrom(stores, snap)}>
                        New session
                      </button>
                      <Menu label={`more for ${snap.id}`} items={actionsFor(stores, snap, !!parent && parent.state !== 'finished')} />
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
          {next && (
            <button onClick={() => void stores.snapshots.getState().more()} disabled={loading} style={{ alignSelf: 'center' }}>
              {loading ? 'Loading…' : 'Show older snapshots'}
            </button>
          )}
        </>
      )}
    </>
  )
}
