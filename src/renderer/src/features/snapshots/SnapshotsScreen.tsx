import { useEffect, useMemo } from 'react'
import type { Snapshot } from '../../../../shared/models'
import { EmptyState } from '../../components/EmptyState'
import { Menu, type MenuItem } from '../../components/Menu'
import { ProblemLine } from '../../components/ProblemLine'
import { ServerFilter } from '../../components/ServerFilter'
import { age, bytes, dateTime } from '../../lib/format'
import { useNow } from '../../lib/hooks'
import { useSessions, useSnapshots, useStores, type AppStores } from '../../stores/app-stores'
import { askThenRun } from '../../stores/ui'

const REASONS: Record<string, string> = {
  named: 'named',
  pause: 'pause',
  seal: 'seal',
  'pre-rewind': 'before a rewind',
  fork: 'fork',
  move: 'move',
  restart: 'restart',
}

/** How a session came back from a snapshot: with its memory, or from disk and why. */
const restoredHow = (r: { memory: boolean; note?: string | null | undefined }) => (r.memory ? 'with its memory' : `from disk${r.note ? ` (${r.note})` : ''}`)

async function newSessionFrom(stores: AppStores, snap: Snapshot, count = 1): Promise<void> {
  const { ui } = stores
  const values = await ui.getState().askFor({
    title: count > 1 ? `Fork ${snap.id}` : `New session from ${snap.id}`,
    body:
      snap.kind === 'memory+disk'
        ? 'Its processes continue from the snapshot where the server can restore memory; otherwise it boots from the snapshot’s disk, and says so.'
        : 'It boots from the snapshot’s disk.',
    fields: [
      ...(count > 1 ? [{ name: 'count', label: 'How many sessions', type: 'number' as const, initial: '2', check: (v: string) => (/^\d+$/.test(v) && +v >= 1 && +v <= 16 ? null : 'between 1 and 16 sessions') }] : []),
      { name: 'server', label: 'Server', initial: snap.server, hint: `${stores.servers.getState().list.map((s) => s.name).join(', ')}; the snapshot is carried there if it lives elsewhere`, check: (v) => (stores.servers.getState().list.some((s) => s.name === v) ? null : `there is no server named ${v}`) },
      { name: 'name', label: 'Name', placeholder: 'optional', check: (v) => (!v || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? null : 'a session name is letters, digits, dot, dash and underscore') },
    ],
    confirmLabel: count > 1 ? 'Fork' : 'Create the session',
  })
  if (!values) return
  const n = Number(values.count ?? 1)
  const made: string[] = []
  for (let i = 1; i <= n; i++) {
    const name = values.name ? (n > 1 ? `${values.name}-${i}` : values.name) : undefined
    try {
      const s = await stores.snapshots.getState().createFrom(snap, { server: values.server, name })
      made.push(s.name)
      const from = s.origin ? restoredHow(s.origin) : ''
      if (n === 1) {
        ui.getState().info(`${s.name} started from ${snap.id} ${from}.`.replace(/ \./, '.'))
        ui.getState().navigate({ screen: 'session', id: s.id })
      }
    } catch (e) {
      ui.getState().fail(e)
    }
  }
  if (n > 1 && made.length) ui.getState().info(`${made.length} of ${n} sessions started from ${snap.id}: ${made.join(', ')}.`)
}

function actionsFor(stores: AppStores, snap: Snapshot, parentLive: boolean): MenuItem[] {
  const { ui, snapshots } = stores
  const items: MenuItem[] = [
    { label: 'Fork into several sessions…', run: () => void newSessionFrom(stores, snap, 2) },
    {
      label: 'Test that it restores',
      run: () =>
        void snapshots
          .getState()
          .test(snap.id)
          .then(
            (r) => ui.getState().info(`${snap.id} restores ${restoredHow(r)} (${(r.ms / 1000).toFixed(1)} s).`),
            (e: unknown) => ui.getState().fail(e),
          ),
    },
  ]
  if (snap.sessionId && parentLive)
    items.push({
      label: 'Rewind its session to it…',
      run: () =>
        askThenRun(
          ui,
          {
            title: `Rewind ${snap.sessionName ?? 'the session'} to ${snap.id}?`,
            body: 'The session comes back to this snapshot; its state now is kept as a snapshot first, so nothing is lost.',
            confirmLabel: 'Rewind',
          },
          async () => {
            const r = await snapshots.getState().rewind(snap.sessionId!, snap.id)
            return `${r.session.name} is back at ${r.to.id} ${restoredHow(r)}; its state before is kept as ${r.kept.id}.`
          },
        ),
    })
  items.push({
    label: 'Delete…',
    danger: true,
    run: () =>
      askThenRun(
        ui,
        {
          title: `Delete ${snap.id}?`,
          body: `What it holds on ${snap.server} (${bytes(snap.sizeBytes)}) is removed. Sessions made from it keep running.`,
          confirmLabel: 'Delete',
          danger: true,
        },
        async () => {
          await snapshots.getState().remove(snap.id)
          return `${snap.id} deleted.`
        },
      ),
  })
  return items
}

/** A session's checkpoints as a timeline, newest first. */
function Timeline({ items, now }: { items: Snapshot[]; now: number }) {
  return (
    <ol className="timeline" aria-label="checkpoint history">
      {items.map((s) => (
        <li key={s.id} className={s.auto ? 'auto' : undefined}>
          <strong className="mono">{s.id}</strong> <span className="muted">{dateTime(s.createdAt)} · {age(s.createdAt, now)} ago</span>
          <div>
            <span className="tag">{REASONS[s.reason ?? ''] ?? (s.auto ? 'automatic' : 'named')}</span>
            <span className="tag">{s.kind}</span>
            <span className="tag">{bytes(s.sizeBytes)}</span>
            {s.parentSnapshot && <span className="tag">after {s.parentSnapshot}</span>}
          </div>
        </li>
      ))}
    </ol>
  )
}

export function SnapshotsScreen({ session }: { session?: string | undefined }) {
  const stores = useStores()
  const items = useSnapshots((s) => s.items)
  const next = useSnapshots((s) => s.next)
  const loading = useSnapshots((s) => s.loading)
  const loaded = useSnapshots((s) => s.loaded)
  const loadError = useSnapshots((s) => s.loadError)
  const filter = useSnapshots((s) => s.filter)
  const byId = useSessions((s) => s.byId)
  const now = useNow()
  const setFilter = stores.snapshots.getState().setFilter

  // the route names a session: its checkpoint history
  useEffect(() => {
    if ((session ?? '') !== filter.session) setFilter({ session: session ?? '' })
    else void stores.snapshots.getState().load()
  }, [session]) // eslint-disable-line react-hooks/exhaustive-deps

  const sessionsWithSnapshots = useMemo(() => Object.values(byId).sort((a, b) => a.name.localeCompare(b.name)), [byId])
  const focus = session ? byId[session] : undefined

  return (
    <section className="screen" aria-labelledby="snapshots-title">
      <div className="screen-head">
        <h1 id="snapshots-title">{focus ? `Snapshots of ${focus.name}` : 'Snapshots'}</h1>
        <div className="toolbar">
          <input type="search" aria-label="filter snapshots by name" placeholder="Name" value={filter.name} onChange={(e) => setFilter({ name: e.target.value })} />
          <select
            aria-label="session"
            value={filter.session}
            onChange={(e) => stores.ui.getState().navigate(e.target.value ? { screen: 'snapshots', session: e.target.value } : { screen: 'snapshots' })}
          >
            <option value="">All sessions</option>
            {sessionsWithSnapshots.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
          <ServerFilter label="snapshot server" value={filter.server} all="" onChange={(server) => setFilter({ server })} />
          <label className="choice" style={{ alignItems: 'center' }}>
            <input type="checkbox" checked={filter.auto} onChange={(e) => setFilter({ auto: e.target.checked })} />
            automatic checkpoints
          </label>
          <button onClick={() => void stores.snapshots.getState().load()}>Refresh</button>
        </div>
      </div>
      {loadError ? <ProblemLine error={loadError} onRetry={() => void stores.snapshots.getState().load()} /> : null}
      {!loaded ? (
        <p className="muted">Loading snapshots…</p>
      ) : items.length === 0 ? (
        <EmptyState title={filter.session || filter.name || filter.server || !filter.auto ? 'No snapshot matches these filters' : 'No snapshots yet'}>
          Every pause leaves a checkpoint here, and so does a snapshot you take from a session’s menu; start a session from one, fork it or rewind its session to it.
        </EmptyState>
      ) : (
        <>
          {focus && <Timeline items={items} now={now} />}
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
                      <strong className="mono">{snap.id}</strong>
                      <div className="sub">{REASONS[snap.reason ?? ''] ?? (snap.auto ? 'automatic' : 'named')}</div>
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
    </section>
  )
}
