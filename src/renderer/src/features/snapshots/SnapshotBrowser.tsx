// The snapshot browser of one session: the lineage of sessions around it, its checkpoints as a
// timeline, and for the one selected its details, what can be done with it, and what changed.
import { useEffect } from 'react'
import type { LineageNode, TimelineEntry } from '../../../../shared/contract/snapshot-browser'
import { ProblemLine } from '../../components/ProblemLine'
import { age, bytes, dateTime } from '../../lib/format'
import { useNow } from '../../lib/hooks'
import { useBrowser, useSessions, useStores } from '../../stores/app-stores'
import { Changes } from './Changes'
import { actionsFor, keptBecause, newSessionFrom, reasonOf } from './snapshot-actions'

function Lineage({ nodes, current }: { nodes: LineageNode[]; current: string }) {
  const { ui } = useStores()
  const below = (id: string | null): LineageNode[] => nodes.filter((n) => n.parent === id)
  const draw = (n: LineageNode) => {
    const kids = below(n.id)
    return (
      <li key={n.id}>
        <a
          href={`#/snapshots/${encodeURIComponent(n.id)}`}
          aria-current={n.id === current ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault()
            ui.getState().navigate({ screen: 'snapshots', session: n.id })
          }}
        >
          {n.name}
        </a>{' '}
        <span className="muted">
          {n.state}
          {n.snapshot ? ` · ${n.verb ?? 'made'} from ${n.snapshot}` : ''}
        </span>
        {kids.length > 0 && <ul>{kids.map(draw)}</ul>}
      </li>
    )
  }
  return (
    <nav aria-label="lineage" className="lineage">
      <h2>Lineage</h2>
      <ul>{below(null).map(draw)}</ul>
    </nav>
  )
}

function Checkpoints({ items, selected, now }: { items: TimelineEntry[]; selected: string | null; now: number }) {
  const { browser } = useStores()
  return (
    <ol className="timeline browse" aria-label="checkpoint history">
      {items.map((s) => (
        <li key={s.id} className={s.auto ? 'auto' : undefined}>
          <button className="checkpoint" aria-current={s.id === selected ? 'true' : undefined} onClick={() => browser.getState().select(s.id)}>
            <strong className="mono">{s.id}</strong>
            <span className="muted">
              {reasonOf(s)} · {s.kind} · {bytes(s.sizeBytes)} · {age(s.createdAt, now)} ago
              {s.dependents.length ? ` · ${s.dependents.length} depend${s.dependents.length === 1 ? 's' : ''} on it` : ''}
            </span>
          </button>
        </li>
      ))}
    </ol>
  )
}

function Details({ snap, parentLive }: { snap: TimelineEntry; parentLive: boolean }) {
  const stores = useStores()
  const now = useNow(1000)
  const sessions = snap.dependents.filter((d) => d.kind === 'session').map((d) => d.name)
  const kept = keptBecause(snap, sessions)
  const actions = actionsFor(stores, snap, parentLive, kept)
  return (
    <section className="details" aria-labelledby="snapshot-details-title">
      <h2 id="snapshot-details-title" className="mono">
        {snap.id}
      </h2>
      <dl className="facts-list">
        <dt>Why</dt>
        <dd>{reasonOf(snap)}</dd>
        <dt>Kind</dt>
        <dd>{snap.kind}</dd>
        <dt>Size</dt>
        <dd>{bytes(snap.sizeBytes)}</dd>
        <dt>Server</dt>
        <dd>{snap.server}</dd>
        <dt>Taken</dt>
        <dd>
          {dateTime(snap.createdAt)} ({age(snap.createdAt, now)} ago)
        </dd>
        <dt>After</dt>
        <dd className="mono">{snap.parentSnapshot ?? '–'}</dd>
        <dt>Restore</dt>
        <dd>{snap.testRestored ? 'tested: a test restore succeeded' : 'not tested yet'}</dd>
        {snap.note && (
          <>
            <dt>What it is</dt>
            <dd>{snap.note}</dd>
          </>
        )}
        <dt>Depends on it</dt>
        <dd>{snap.dependents.length ? snap.dependents.map((d) => (d.kind === 'session' ? `session ${d.name}` : d.name)).join(', ') : 'nothing'}</dd>
      </dl>
      <div className="toolbar" role="group" aria-label={`actions for ${snap.id}`}>
        <button className="primary" onClick={() => void newSessionFrom(stores, snap)}>
          New session from here
        </button>
        {actions.map((a) => (
          <button key={a.label} className={a.danger ? 'danger' : undefined} aria-disabled={a.label === 'Delete…' && kept ? true : undefined} onClick={() => void a.run()}>
            {a.label.replace('Rewind its session to it…', 'Rewind the session to here…').replace('Fork into several sessions…', 'Fork…')}
          </button>
        ))}
      </div>
      {kept && <p className="muted">Kept: {kept}.</p>}
    </section>
  )
}

export function SnapshotBrowser({ session }: { session: string }) {
  const { browser } = useStores()
  const timeline = useBrowser((s) => s.timeline)
  const error = useBrowser((s) => s.error)
  const selected = useBrowser((s) => s.selected)
  const byId = useSessions((s) => s.byId)
  const now = useNow(1000)
  useEffect(() => void browser.getState().open(session), [session, browser])

  if (error && !timeline) return <ProblemLine error={error} onRetry={() => void browser.getState().reload()} />
  if (!timeline || timeline.session.id !== (byId[session]?.id ?? timeline.session.id)) return <p className="muted">Loading the timeline…</p>
  const snap = timeline.items.find((s) => s.id === selected)
  const owner = byId[timeline.session.id]
  return (
    <div className="browser">
      <div className="browser-left">
        {timeline.lineage.length > 1 && <Lineage nodes={timeline.lineage} current={timeline.session.id} />}
        <h2>Checkpoints</h2>
        {timeline.items.length === 0 ? (
          <p className="muted">No checkpoints of {timeline.session.name} yet: pause it, or take a snapshot from its menu.</p>
        ) : (
          <Checkpoints items={timeline.items} selected={selected} now={now} />
        )}
      </div>
      <div className="browser-right">
        {snap && <Details snap={snap} parentLive={!!owner && owner.state !== 'finished'} />}
        {snap && <Changes snap={snap} choices={timeline.items.filter((s) => s.id !== snap.id).map((s) => s.id)} />}
      </div>
    </div>
  )
}
