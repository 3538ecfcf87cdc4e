import type { Session } from '../../../shared/models'

/** The state in words: paused says how (its mode), failed says why (in the title and below). */
export function stateText(s: Pick<Session, 'state' | 'mode' | 'durable' | 'pausedBy'>): string {
  if (s.state === 'paused') {
    const mode = s.mode ? ` (${s.mode}${s.durable ? '' : ', saving…'})` : ''
    return `paused${mode}`
  }
  return s.state
}

export function StateBadge({ session }: { session: Pick<Session, 'state' | 'mode' | 'durable' | 'failure' | 'pausedBy'> }) {
  const by = session.state === 'paused' && session.pausedBy && session.pausedBy !== 'user' ? ` by ${session.pausedBy === 'idle' ? 'idleness' : 'the sleep policy'}` : ''
  return (
    <span className={`badge state-${session.state}`} title={session.state === 'failed' ? (session.failure ?? 'failed') : stateText(session) + by} data-state={session.state}>
      {stateText(session)}
    </span>
  )
}
