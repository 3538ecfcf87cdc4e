// Fork: one capture of a session, then K independent sessions made from it. Each fork gets its own
// id, route and workspace branch, and succeeds or fails on its own; the result lists both.
import type { z } from 'zod'
import type { ForkOutcome, ForkResult } from '../../../shared/contract/snapshots'
import { toErrorBody } from '../../../shared/errors'
import { progressOn, type ProgressReporter } from '../progress'
import type { SnapshotRow } from '../store/snapshots-repo'
import { sessionFromSnapshot } from './session-from-snapshot'
import type { SnapshotService } from './snapshot-service'
import { liveSupport } from './live-capture'
import { stateError } from '../sessions/lifecycle'

/**
 * The one capture every fork starts from. A running session keeps running: its memory and disk are
 * captured in one brief freeze (live-capture.ts), and each fork continues from that moment. A paused
 * session is captured as it is. Without memory support: its disk, and the capture says why.
 */
export async function captureForFork(svc: SnapshotService, sessionId: string, progress: ProgressReporter): Promise<SnapshotRow> {
  const memory = svc.ctx.memory
  return await memory.pause.exclusive(sessionId, async () => {
    const row = svc.ctx.sessions.resolve(sessionId)
    if (row.state === 'paused') return await svc.capture(row, { reason: 'fork', freeze: false, memory: memory.pausedCheckpoint(row), progress })
    if (row.state !== 'running') throw stateError(row, 'fork')
    const live = await liveSupport(memory, row)
    if (!live.live) svc.ctx.lifecycle.note(row.id, 'fork-disk-only', { reason: live.note })
    return await svc.capture(row, { reason: 'fork', freeze: !live.live, live: live.live, memoryNote: live.note, progress })
  })
}

export function forkNames(base: string | undefined, count: number): Array<string | undefined> {
  return Array.from({ length: count }, (_, i) => (base === undefined ? undefined : count === 1 ? base : `${base}-${i + 1}`))
}

export async function fork(
  svc: SnapshotService,
  args: { id: string; name?: string | undefined; count?: number | undefined; op?: string | undefined },
): Promise<z.infer<typeof ForkResult>> {
  const source = svc.ctx.sessions.resolve(args.id)
  if (!['running', 'paused'].includes(source.state)) {
    throw stateError(source, 'fork')
  }
  const count = args.count ?? 1
  const progress = progressOn(svc.ctx.bus, args.op, source.id, source.server)
  const capture = await svc.locks.run(source.id, () => captureForFork(svc, source.id, progress))
  const forks: Array<z.infer<typeof ForkOutcome>> = []
  const names = forkNames(args.name, count)
  for (let i = 0; i < count; i++) {
    const name = names[i]
    progress.stage('fork', `starting fork ${i + 1} of ${count}${name ? ` (${name})` : ''}`)
    try {
      const made = await sessionFromSnapshot(svc, {
        snapshot: capture,
        name,
        verb: 'fork',
        op: args.op,
      })
      forks.push({ ok: true, index: i + 1, session: made.session, memory: made.memory, note: made.note })
    } catch (e) {
      forks.push({ ok: false, index: i + 1, name: name ?? null, error: toErrorBody(e) })
    }
  }
  const succeeded = forks.filter((f) => f.ok).length
  svc.ctx.lifecycle.note(source.id, 'forked', { capture: capture.id, succeeded, failed: count - succeeded })
  progress.done('fork', `${succeeded} of ${count} fork${count === 1 ? '' : 's'} of ${source.name} running`)
  return { capture: svc.toModel(capture), forks, succeeded, failed: count - succeeded }
}
