import { useEffect } from 'react'
import type { EventRecord } from '../../../../shared/models'
import { clock } from '../../lib/format'
import { useEvents, useStores } from '../../stores/app-stores'

const EMPTY: EventRecord[] = []

export function describeEvent(e: EventRecord): string {
  const verb = typeof e.detail.verb === 'string' ? e.detail.verb : undefined
  if (e.from && e.to) {
    const reason = typeof e.detail.reason === 'string' ? `: ${e.detail.reason}` : ''
    return `${verb ? `${verb}: ` : ''}${e.from} → ${e.to}${reason}`
  }
  const bits = Object.entries(e.detail)
    .filter(([, v]) => ['string', 'number', 'boolean'].includes(typeof v))
    .slice(0, 3)
    .map(([k, v]) => `${k} ${String(v)}`)
  return bits.length ? `${e.kind} (${bits.join(', ')})` : e.kind
}

export function EventsPanel({ sessionId }: { sessionId: string }) {
  const stores = useStores()
  const events = useEvents((s) => s.bySession[sessionId] ?? EMPTY)
  useEffect(() => {
    void stores.events.getState().load(sessionId).catch(() => undefined)
  }, [stores, sessionId])
  return (
    <>
      <h2>Events</h2>
      {events.length === 0 ? (
        <p className="muted" style={{ margin: '0 14px' }}>
          Nothing has happened yet.
        </p>
      ) : (
        <ol className="events" aria-label="session events">
          {[...events].reverse().map((e) => (
            <li key={e.seq}>
              <time dateTime={e.at} title={e.at}>
                {clock(e.at)}
              </time>
              <span className="what">{describeEvent(e)}</span>
            </li>
          ))}
        </ol>
      )}
    </>
  )
}
