// Fork: one capture of a session, then K independent sessions made from it. Each fork gets its own
// id, route and workspace branch, and succeeds or fails on its own; the result lists both.
import type { z } from 'zod'
import type { ForkOutcome, ForkResult } from '../../../shared/contract/snapshots'
import { toErrorBody } from '../../../shared/errors'
import { progressOn, type ProgressReporter } from '../progress'
import type { SnapshotRow } from '../store/snapshots-repo'
import { sessionFromSnapshot } from './session-from-snapshot'
import type { SnapshotService } from './snapshot-service'
import { stateError } from '../sessions/lifecycle'

/**
 * The one capture every fork starts from. A running session is paused with its memory (the same
 * pause as `berth pause`), captured, and resumed: it goes on as it was, and each fork continues from
 * that same moment. A paused session is captured as it is. Without memory support: its disk.
 */
export async function captureForFork(svc: SnapshotService, sessionId: string, progress: ProgressReporter): Promise<SnapshotRow> {
  const memory = svc.ctx.memory
  let row = svc.ctx.sessions.resolve(sessionId)
  if (row.state === 'paused') return await svc.capture(row, { reason: 'fork', freeze: false, memory: memory.pausedCheckpoint(row), progress })
  const support = await memory.supported(row.server)
  if (!support.memory) {
    svc.ctx.lifecycle.note(row.id, 'fork-disk-only', { reason: support.reason })
    return await svc.capture(row, { reason: 'fork', freeze: true, progress })
  }
  progress.stage('pause', `pausing ${row.name} with its memory for the capture`)
  await memory.pause.pause(row.id, { wait: true, by: 'user', reason: 'the capture of a fork', op: progress.op })
  try {
    row = svc.ctx.sessions.resolve(row.id)
    return await svc.capture(row, { reason: 'fork', freeze: false, memory: memory.pausedCheckpoint(row), progress })
  } finally {
    progress.stage('resume', `resuming ${row.name}`)
    await memory.pause.resume(row.id, { cause: 'user' }).catch((e: Error) => svc.ctx.lifecycle.note(row.id, 'fork-resume-failed', { reason: e.message }))
  }
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
