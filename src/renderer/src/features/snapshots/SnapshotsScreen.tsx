import { hasCall } from '../../api/client'
import { EmptyState } from '../../components/EmptyState'

export function SnapshotsScreen() {
  return (
    <section className="screen" aria-labelledby="snapshots-title">
      <div className="screen-head">
        <h1 id="snapshots-title">Snapshots</h1>
      </div>
      {hasCall('snapshot.list') ? null : (
        <EmptyState title="No snapshots yet">Every pause leaves a checkpoint here, and so does a snapshot you take; start a session from one, fork it or rewind to it.</EmptyState>
      )}
    </section>
  )
}
