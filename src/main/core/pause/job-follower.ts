// Follows a server job to its end, reconnecting after a dropped connection: the job goes on on the
// server meanwhile, and following again from the last line seen skips nothing and repeats nothing.
import type { Checkpoints } from '../checkpoints/checkpoints'
import { mergeOutcomes, type JobLine, type JobOutcome } from '../engines/server-script/job-protocol'

export interface FollowDeps {
  checkpoints: Checkpoints
  note: (kind: string, detail: Record<string, unknown>) => void
  /** how long to keep trying to reach the server again */
  reconnectMs: number
  /** Berth is stopping: stop waiting */
  closing: () => boolean
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Follows `job` on `server` (starting it when `launch` is given); with `retry`, reconnects until the deadline. */
export async function followJob(
  d: FollowDeps,
  server: string,
  job: string,
  launch: string[] | null,
  onLine: (l: JobLine) => void,
  retry = true,
  limitSeconds?: number,
): Promise<JobOutcome> {
  const runner = d.checkpoints.runner(server)
  let o = launch ? await runner.start(job, launch, onLine, limitSeconds ? { limitSeconds } : {}) : await runner.follow(job, 0, onLine)
  if (o.followed || !retry) return o
  d.note('connection-lost', { server, job, reason: o.reason ?? null })
  const deadline = Date.now() + d.reconnectMs
  let delay = 200
  while (!o.followed && Date.now() < deadline && !d.closing()) {
    await sleep(delay)
    delay = Math.min(delay * 2, 3000)
    // a new runner each time: the engine may have been replaced while the connection was down
    const next = await d.checkpoints.runner(server).follow(job, o.lines, onLine)
    o = mergeOutcomes(o, next)
  }
  if (o.followed) d.note('connection-restored', { server, job })
  return o
}
