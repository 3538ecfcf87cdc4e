// What a pause that was not over by its deadline is, as it stands. The store says paused once the
// session's job on the server reported it frozen; before that, its server's freeze of all its
// sessions (pause --all's stage one) may have frozen it already, files durable: on a loaded server
// the job that takes over from there can take seconds to start and report, and the session is
// frozen meanwhile, not running.
import type { PauseRow } from '../store/pauses-repo'
import type { SessionRow } from '../store/sessions-repo'

export type AtDeadline = 'paused' | 'frozen-by-batch' | 'not-paused'

export function atDeadline(row: Pick<SessionRow, 'state'>, pause: Pick<PauseRow, 'detail'> | undefined): AtDeadline {
  if (!pause) return 'not-paused'
  if (row.state === 'paused') return 'paused'
  const batch = pause.detail.batch as { frozen?: unknown } | undefined
  if (row.state === 'pausing' && batch?.frozen === true && typeof pause.detail.frozenMs === 'number') return 'frozen-by-batch'
  return 'not-paused'
}
