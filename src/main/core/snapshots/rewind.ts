// Rewind: a session goes back to an earlier snapshot of its own. Its current state is captured first
// (a pre-rewind snapshot, never dropped by retention), so a rewind loses nothing and can itself be
// undone by rewinding to that snapshot.
import type { z } from 'zod'
import type { RewindResult } from '../../../shared/contract/snapshots'
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import { progressOn } from '../progress'
import { removeContainerAndVolume } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { SnapshotRow } from '../store/snapshots-repo'
import { restoreOnItsServer } from './restore'
import { renameWorkspaceBranch } from './session-from-snapshot'
import type { SnapshotService } from './snapshot-service'
import { stateError } from '../sessions/lifecycle'

export async function rewind(
  svc: SnapshotService,
  args: { id: string; to: string; op?: string | undefined },
): Promise<z.infer<typeof RewindResult>> {
  const ctx = svc.ctx
  const first = ctx.sessions.resolve(args.id)
  const target = svc.restorable(args.to)
  if (target.sessionId !== first.id) {
    throw new BerthError('refused', `snapshot ${target.id} is not one of session ${first.name}'s own; start a new session from it with: berth session create --from ${target.id}`)
  }
  return await svc.locks.run(first.id, async () => {
    const row = ctx.sessions.resolve(first.id)
    if (!['running', 'paused', 'failed'].includes(row.state)) {
      throw stateError(row, 'rewind')
    }
    if (target.server !== row.server) {
      throw new BerthError('refused', `snapshot ${target.id} lives on ${target.server} but the session now runs on ${row.server}; move it back first`)
    }
    const progress = progressOn(ctx.bus, args.op, row.id, row.server)
    const kept = await svc.capture(row, { reason: 'pre-rewind', name: `${row.name}.pre-rewind`, freeze: row.state === 'running', progress })
    ctx.lifecycle.transition(row.id, {
      from: [row.state],
      to: 'restarting',
      verb: 'rewind',
      detail: { to: target.id, kept: kept.id },
    })
    const engine = ctx.engines.get(row.server)
    progress.stage('rewind', `bringing ${row.name} back to ${target.id}`)
    try {
      const out = await replaceFrom(svc, target, row.id, true)
      if (row.workspace && target.detail.workspace) await renameWorkspaceBranch(engine, out.containerId, target.detail.workspace.branch, row.workspace.branch)
      svc.setOption(row.id, 'snapshotHead', target.id)
      svc.setOrigin(row.id, { verb: 'rewind', snapshot: target.id, memory: out.memory, note: out.note, at: nowIso() })
      ctx.repo.pin(target.id, row.id, 'rewind')
      svc.markRestored(target.id)
      const running = ctx.lifecycle.transition(row.id, {
        from: ['restarting'],
        to: 'running',
        verb: 'rewind',
        patch: { containerId: out.containerId, image: out.image, mode: null, pausedBy: null, failure: null, durable: false },
        detail: { to: target.id, kept: kept.id, memory: out.memory, note: out.note },
      })
      progress.done('rewind', `${row.name} is back at ${target.id}; its state before is kept as ${kept.id}`)
      return { session: ctx.sessions.toModel(running), kept: svc.toModel(kept), to: svc.toModel(target), memory: out.memory, note: out.note }
    } catch (e) {
      const reason = reasonOf(e)
      // Put back what was there: the pre-rewind snapshot holds it.
      try {
        const back = await replaceFrom(svc, kept, row.id, true)
        ctx.lifecycle.transition(row.id, {
          from: ['restarting'],
          to: 'running',
          verb: 'rewind',
          patch: { containerId: back.containerId, image: back.image, mode: null, pausedBy: null },
          detail: { failed: reason, restored: kept.id },
        })
      } catch (e2) {
        ctx.lifecycle.transition(row.id, {
          from: ['restarting'],
          to: 'failed',
          verb: 'rewind',
          patch: { failure: `rewind failed (${reason}) and so did putting ${kept.id} back (${oneSentence((e2 as Error).message)}); rewind to ${kept.id} to retry`, containerId: null },
        })
      }
      throw new BerthError('engine', `could not rewind ${row.name} to ${target.id}: ${reason}; the session is as it was (kept as ${kept.id})`)
    }
  })
}

/** Replaces the session's container and workspace with a snapshot's, on the session's server. */
async function replaceFrom(svc: SnapshotService, snap: SnapshotRow, sessionId: string, memory: boolean) {
  const ctx = svc.ctx
  const row = ctx.sessionsRepo.get(sessionId)!
  const engine = ctx.engines.get(row.server)
  await removeContainerAndVolume(engine.docker, row.id)
  return await restoreOnItsServer(svc, {
    snapshot: snap,
    row,
    env: row.env,
    memory,
  })
}
