// Where a session's replica is and how current: what `session show` says of it, from the contract's
// `replica` (server, the time of the state it holds, memory or disk, how far behind). A replica that
// is behind, or whose last try failed, is marked: it is what `resume --on` would come back from.
import type { ReplicaState } from '../../../../shared/models'
import { replicaLine } from '../../../../shared/format'

export function ReplicaPanel({ replica }: { replica: ReplicaState }) {
  const behind = replica.behindSeconds > 0 || replica.failure !== null
  return (
    <section aria-label="replica">
      <h2>Replica</h2>
      <div className="block">
        <span className={behind ? 'unsaved' : undefined} title={replica.at}>
          {behind ? '● ' : ''}
          {replicaLine(replica)}
        </span>
      </div>
    </section>
  )
}
