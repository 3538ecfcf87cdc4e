// The session's header: its name, state and verbs, its facts, and one status line. Every part has
// a fixed height whatever the state, so the terminal below never moves (a pause's progress, an
// origin or a failure take the same one line, cut with an ellipsis and whole in the title).
import { CopyLine } from '../../components/CopyLine'
import { Menu } from '../../components/Menu'
import { ProgressBar } from '../../components/ProgressBar'
import { StateBadge } from '../../components/StateBadge'
import { age, imageLabel, meterLine } from '../../lib/format'
import { useNow } from '../../lib/hooks'
import { useServers, useSessions, useStores, useWorkspace } from '../../stores/app-stores'
import type { ShownSession } from '../../stores/sessions'
import { sessionActions } from '../sessions/session-actions'

function Facts({ s }: { s: ShownSession }) {
  const now = useNow()
  const unsaved = useWorkspace((w) => (s.workspace && w.byId[s.id]?.status ? !w.byId[s.id]!.status!.saved : false))
  return (
    <div className="facts">
      <span>
        on <strong>{s.server}</strong>
      </span>
      <span className="mono" title={s.image}>
        {imageLabel(s.image)}
      </span>
      <span title={s.createdAt}>{age(s.createdAt, now)} old</span>
      <span>route {s.route}</span>
      {s.meter && <span>{meterLine(s.meter, s.state)}</span>}
      {unsaved && <span className="unsaved">● unsaved work</span>}
      {s.activity && s.state === 'running' && <span title="what keeps the session from pausing itself">{s.activity.status}</span>}
    </div>
  )
}

/** Where the session came from, in one sentence. */
export function originText(s: ShownSession): string | null {
  const o = s.origin
  if (!o) return null
  const verb = o.verb === 'create' ? 'Started' : `Made by ${o.verb}`
  const from = o.snapshot ? ` from snapshot ${o.snapshot}` : ''
  return `${verb}${from}: ${o.memory ? 'its processes continued from memory' : `booted from disk${o.note ? ` (${o.note})` : ''}`}.`
}

/** One line under the facts: long work's progress first, then a failure, then the origin. */
function StatusLine({ s }: { s: ShownSession }) {
  const progress = useSessions((st) => st.progress[s.id])
  const origin = originText(s)
  return (
    <div className="status-line">
      {progress ? (
        <ProgressBar progress={progress} />
      ) : s.state === 'failed' && s.failure ? (
        <span className="failure" title={s.failure}>
          {s.failure}
        </span>
      ) : origin ? (
        <span className="origin" title={origin}>
          {origin}
        </span>
      ) : null}
    </div>
  )
}

export function SessionHeader({ session, sideOpen, onToggleSide, afterVerb }: { session: ShownSession; sideOpen: boolean; onToggleSide(): void; afterVerb(): void }) {
  const stores = useStores()
  const servers = useServers((s) => s.list)
  const verbs = sessionActions(stores, session, servers)
  const primary = verbs.primary
  return (
    <header className="session-head">
      <div className="head-row">
        <h1 title={session.name}>{session.name}</h1>
        <StateBadge session={session} />
        {session.sshLine && <CopyLine text={session.sshLine} label="ssh line" />}
        <div className="actions">
          {primary && (
            <button className="primary" onClick={() => void Promise.resolve(primary.run()).then(afterVerb)}>
              {primary.label}
            </button>
          )}
          <Menu label={`more for ${session.name}`} items={verbs.more} />
          <button className="side-toggle" aria-expanded={sideOpen} aria-controls="session-side" onClick={onToggleSide}>
            Details
          </button>
        </div>
      </div>
      <Facts s={session} />
      <StatusLine s={session} />
    </header>
  )
}
