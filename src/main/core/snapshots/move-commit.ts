// Move, last step: the session switches to the target (started there with resume, else paused
// there), its pause records follow it, and the source lets go of its copy off the critical path.
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { ProgressReporter } from '../progress'
import { sessionImage } from '../engines/docker-names'
import { removeContainerAndVolume } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { SessionRow } from '../store/sessions-repo'
import type { CarryOutcome } from './carry'
import type { MovePlan } from './move-plan'
import { removeImageTag } from './server-steps'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'

export interface MoveCommit {
  source: Engine
  target: Engine
  row: SessionRow
  plan: MovePlan
  out: CarryOutcome
  to: string
  resume: boolean
  progress: ProgressReporter
}

export async function commitMove(svc: SnapshotService, transfer: Transfer, m: MoveCommit): Promise<{ final: SessionRow; memory: boolean; note: string | null }> {
  const ctx = svc.ctx
  const { source, target, row, plan, out, to, progress } = m
  const from = row.server
  for (const hook of ctx.sessions.beforeStart) await hook({ ...row, containerId: out.containerId }, target, out.containerId)
  let memory = plan.memory.carry
  let note = plan.memory.note
  let final: SessionRow
  if (m.resume) {
    progress.stage('restore', memory ? `restoring ${row.name}'s memory on ${to}` : `starting ${row.name} on ${to}`)
    if (memory && plan.memory.checkpoint) {
      const r = await ctx.memory.restore(to, out.containerId, plan.memory.checkpoint.name)
      memory = r.memory
      note = r.note ?? note
    } else {
      await target.docker.getContainer(out.containerId).start()
    }
    const runs = await target.docker.getContainer(out.containerId).inspect()
    if (!runs.State.Running) throw new BerthError('engine', `the session's container did not start on ${to} (${runs.State.Status})`)
    await ctx.sessions.runAfterStart({ ...row, containerId: out.containerId, server: to }, target, out.containerId, { kept: memory })
    // the switch: from here the session lives on the target
    ctx.lifecycle.transition(row.id, {
      from: ['moving'],
      to: 'resuming',
      verb: 'move',
      patch: { server: to, containerId: out.containerId, image: out.image },
      detail: { from, to, memory, note, bytes: out.bytes },
    })
    final = ctx.lifecycle.transition(row.id, {
      from: ['resuming'],
      to: 'running',
      verb: 'move',
      patch: { mode: null, pausedBy: null, durable: false, failure: null },
      detail: { restored: memory ? 'memory' : 'disk', note },
    })
  } else {
    final = ctx.lifecycle.transition(row.id, {
      from: ['moving'],
      to: 'paused',
      verb: 'move',
      patch: { server: to, containerId: out.containerId, image: out.image, mode: memory ? 'memory' : 'disk', durable: true },
      detail: { from, to, memory, note, bytes: out.bytes },
    })
  }
  // the pause's checkpoint now lives in the target's container (resume and clean-up look there);
  // a pause's committed image stayed on the source and goes with the rest there
  const pause = ctx.memory.pause
  const before = pause.latestPause(row.id)
  pause.movedTo(row.id, to, out.containerId)
  if (before?.image) void removeImageTag(source, before.image).catch(() => undefined)
  const moved = pause.latestPause(row.id)
  if (m.resume && moved) pause.artefacts.removeSoon({ ...moved, image: null })
  // the session lives in one place: the source's container, volume and staged parts go
  svc.spendPauseRecords(row.id, `the session moved to ${to} with it`)
  svc.setOrigin(row.id, { verb: 'move', snapshot: null, memory, note, at: nowIso() })
  // off the critical path: the session already runs on the target (a Berth that stops before
  // this finishes leaves a stopped copy, which the sweep at the next start removes)
  void cleanupSource(svc, transfer, source, target, row, plan.key)
  return { final, memory, note }
}

async function cleanupSource(svc: SnapshotService, transfer: Transfer, source: Engine, target: Engine, row: SessionRow, key: string): Promise<void> {
  try {
    await removeContainerAndVolume(source.docker, row.id)
    await removeImageTag(source, sessionImage(svc.ctx.homeId, row.id)).catch(() => undefined)
  } catch (e) {
    svc.ctx.lifecycle.note(row.id, 'move-cleanup-failed', { server: source.name, reason: oneSentence((e as Error).message) })
  }
  await transfer.stage.remove(source, key)
  await transfer.stage.remove(target, key)
}
