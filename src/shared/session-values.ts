// Plain values about sessions that a page needs at once, apart from the zod schemas in models.ts
// (which re-exports them): the browser's first script then holds no zod (src/renderer/src/main.tsx).
import type { Meter, MeterSummary, Session, SessionSummary } from './models'

export const SESSION_STATES = [
  'creating',
  'running',
  'pausing',
  'paused',
  'resuming',
  'moving',
  'restarting',
  'finishing',
  'finished',
  'failed',
] as const

export const meterSummaryOf = (m: Meter): MeterSummary => ({ cpuPercent: m.cpuPercent, memoryBytes: m.memoryBytes, cost: m.cost, ratePerHour: m.ratePerHour })

/** The summary of a whole session, as `session.list` would answer it. */
export function summaryOf(s: Session): SessionSummary {
  const summary: SessionSummary = {
    id: s.id,
    name: s.name,
    server: s.server,
    state: s.state,
    mode: s.mode,
    pausedBy: s.pausedBy,
    durable: s.durable,
    image: s.image,
    route: s.route,
    workspace: s.workspace,
    createdAt: s.createdAt,
    failure: s.failure,
  }
  if (s.meter) summary.meter = meterSummaryOf(s.meter)
  return summary
}

/** The repository of the image Berth makes of one session's disk (a restart, a move, a start from a snapshot). */
export const SESSION_IMAGE_REPO = 'berth/session'
