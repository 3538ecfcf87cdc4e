// Move: a paused session goes to another server and (with resume) continues there. It keeps its id,
// its views and its route. What travels: the image layers the target lacks, its writable layer, its
// workspace volume and its memory checkpoint; where memory cannot travel (no CRIU or root helper on
// a side, a frozen pause, a restore that fails) it boots from its files and the result says so.
// The source is only read until the target runs: a cut transfer leaves the session paused where it
// was, and the next try continues from the bytes that already arrived.
import type { z } from 'zod'
import type { MoveResult } from '../../../shared/contract/snapshots'
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { ProgressReporter } from '../progress'
import { volumeName, LABEL_HOME, LABEL_SESSION, SESSION_REPO, sessionImage } from '../engines/docker-names'
import { removeSessionContainer } from '../sessions/session-container'
import { removeContainerAndVolume } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { SessionRow } from '../store/sessions-repo'
import { carryContainer } from './carry'
import { removeImageTag, removeVolume } from './server-steps'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'
import { containerOf } from '../sessions/container-spec'

type Result = z.infer<typeof MoveResult>

export async function move(svc: SnapshotService, transfer: Transfer, args: { id: string; to: string; resume?: boolean | undefined; op?: string | undefined }): Promise<Result> {
  const ctx = svc.ctx
  const first = ctx.sessions.resolve(args.id)
  ctx.engines.row(args.to)
  if (first.server === args.to) {
    throw new BerthError('refused', `session ${first.name} is already on ${args.to}${args.resume ? ': resume it without --on' : ''}`)
  }
  return await svc.locks.run(first.id, async () => {
    await ctx.memory.pause.settled(first.id)
    const row = ctx.sessions.resolve(first.id)
    if (row.state !== 'paused') {
      if (row.state === 'finished') throw new BerthError('refused', `cannot move session ${row.name}: the session finished`)
      if (row.state === 'running') throw new BerthError('conflict', `session ${row.name} is running: pause it first (berth pause ${row.name}), then resume it --on ${args.to}`, { state: row.state })
      throw new BerthError('conflict', `cannot move session ${row.name}: it is ${row.state}`, { state: row.state })
    }
    if (!row.durable) throw new BerthError('conflict', `session ${row.name}'s pause is not durable yet; try again in a moment`)
    const source = ctx.engines.get(row.server)
    const target = ctx.engines.get(args.to)
    await Promise.all([source.ready(), target.ready()])
    const t0 = performance.now()
    const progress = new ProgressReporter((p) => ctx.bus.emit('progress', p), { op: args.op, sessionId: row.id, server: args.to })
    const from = row.server
    ctx.lifecycle.transition(row.id, { from: ['paused'], to: 'moving', verb: 'move', detail: { from, to: args.to, resume: !!args.resume } })
    let made = false
    try {
      const containerId = containerOf(row)
      const info = await source.docker.getContainer(containerId).inspect()
      const root = (await transfer.canRoot(from)) && (await transfer.canRoot(args.to))
      const plan = await memoryPlan(svc, row, args.to, root)
      let image = info.Image
      if (!root) {
        // without the root helper the writable layer travels inside a committed image
        progress.stage('commit', `committing ${row.name}'s writable layer on ${from}`)
        const tag = sessionImage(ctx.homeId, row.id)
        await source.docker.getContainer(containerId).commit({ repo: SESSION_REPO, tag: tag.slice(SESSION_REPO.length + 1), pause: false, comment: `Berth move of ${row.id}` })
        image = tag
      }
      made = true
      const out = await carryContainer(transfer, {
        source,
        target,
        homeId: ctx.homeId,
        key: `${row.id}-${info.Id.slice(0, 12)}-${args.to}`,
        row,
        env: row.env,
        image,
        root,
        upperFrom: root ? info.Id : undefined,
        workspaceFrom: root ? { volume: volumeName(row.id) } : { container: info.Id },
        checkpointFrom: plan.carry && plan.checkpoint ? plan.checkpoint : undefined,
        progress,
      })
      for (const hook of ctx.sessions.beforeStart) await hook({ ...row, containerId: out.containerId }, target, out.containerId)
      let memory = plan.carry
      let note = plan.note
      let final: SessionRow
      if (args.resume) {
        progress.stage('restore', memory ? `restoring ${row.name}'s memory on ${args.to}` : `starting ${row.name} on ${args.to}`)
        if (memory && plan.checkpoint) {
          const r = await ctx.memory.restore(args.to, out.containerId, plan.checkpoint.name)
          memory = r.memory
          note = r.note ?? note
        } else {
          await target.docker.getContainer(out.containerId).start()
        }
        const runs = await target.docker.getContainer(out.containerId).inspect()
        if (!runs.State.Running) throw new BerthError('internal', `the session's container did not start on ${args.to} (${runs.State.Status})`)
        await ctx.sessions.runAfterStart({ ...row, containerId: out.containerId, server: args.to }, target, out.containerId)
        // the switch: from here the session lives on the target
        ctx.lifecycle.transition(row.id, {
          from: ['moving'],
          to: 'resuming',
          verb: 'move',
          patch: { server: args.to, containerId: out.containerId, image: out.image },
          detail: { from, to: args.to, memory, note, bytes: out.bytes },
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
          patch: { server: args.to, containerId: out.containerId, image: out.image, mode: memory ? 'memory' : 'disk', durable: true },
          detail: { from, to: args.to, memory, note, bytes: out.bytes },
        })
      }
      // the pause's checkpoint now lives in the target's container (resume and clean-up look there);
      // a pause's committed image stayed on the source and goes with the rest there
      const pause = ctx.memory.pause
      const before = pause.latestPause(row.id)
      pause.movedTo(row.id, args.to, out.containerId)
      if (before?.image) void removeImageTag(source, before.image).catch(() => undefined)
      const moved = pause.latestPause(row.id)
      if (args.resume && moved) pause.artefacts.removeSoon({ ...moved, image: null })
      // the session lives in one place: the source's container, volume and staged parts go
      svc.dropPauseRecords(row.id)
      svc.setOrigin(row.id, { verb: 'move', snapshot: null, memory, note, at: nowIso() })
      // off the critical path: the session already runs on the target (a Berth that stops before
      // this finishes leaves a stopped copy, which the sweep at the next start removes)
      void cleanupSource(svc, transfer, source, target, row, `${row.id}-${info.Id.slice(0, 12)}-${args.to}`)
      const seconds = (performance.now() - t0) / 1000
      progress.done('move', `${row.name} ${args.resume ? 'runs' : 'is paused'} on ${args.to}${memory ? ' with its memory' : note ? ` (${note})` : ''}`, out.bytes)
      return {
        session: ctx.sessions.toModel(final),
        from,
        to: args.to,
        memory,
        note,
        bytes: out.bytes,
        seconds,
        layersSent: out.layersSent,
        layersSkipped: out.layersSkipped,
        resumed: !!args.resume,
      }
    } catch (e) {
      const reason = reasonOf(e)
      if (made) {
        await undoTarget(svc, target, row).catch((u: Error) =>
          ctx.lifecycle.note(row.id, 'move-leftover', { server: args.to, reason: oneSentence(u.message), note: 'removed by the next move there' }),
        )
      }
      ctx.lifecycle.transition(row.id, { from: ['moving'], to: 'paused', verb: 'move', detail: { failed: reason, to: args.to } })
      if (e instanceof BerthError) throw e
      throw new BerthError('internal', `could not move ${row.name} to ${args.to}: ${reason}; it is still paused on ${from}`)
    }
  })
}

interface MemoryPlan {
  carry: boolean
  checkpoint: { container: string; name: string; layout: 'split' | 'docker' } | null
  note: string | null
}

async function memoryPlan(svc: SnapshotService, row: SessionRow, to: string, root: boolean): Promise<MemoryPlan> {
  const memory = svc.ctx.memory
  if (row.mode === 'disk') return { carry: false, checkpoint: null, note: null }
  if (row.mode === 'frozen') {
    return { carry: false, checkpoint: null, note: 'memory did not travel: a frozen pause keeps its memory on its own server; it boots from its files' }
  }
  const cp = memory.pausedCheckpoint(row)
  if (!memory || !cp) return { carry: false, checkpoint: null, note: 'memory did not travel: its pause holds no complete checkpoint; it boots from its files' }
  if (!root) return { carry: false, checkpoint: null, note: `memory did not travel: the root helper is not available on ${row.server} or ${to}; it boots from its files` }
  const support = await memory.supported(to)
  if (!support.memory) return { carry: false, checkpoint: null, note: `memory did not travel: ${support.reason ?? `${to} cannot restore checkpoints`}; it boots from its files` }
  return { carry: true, checkpoint: { container: cp.container, name: cp.name, layout: cp.layout }, note: null }
}

/** A failed try: whatever was made on the target goes (its staged parts stay for the next try). */
async function undoTarget(svc: SnapshotService, target: Engine, row: SessionRow): Promise<void> {
  // the connection may just have been cut: a second try runs on a new one
  for (let attempt = 0; ; attempt++) {
    try {
      await target.ready()
      await removeSessionContainer(target, row.id)
      await removeVolume(target, volumeName(row.id))
      await removeImageTag(target, sessionImage(svc.ctx.homeId, row.id)).catch(() => undefined)
      return
    } catch (e) {
      if (attempt >= 2) throw e
      await new Promise((r) => setTimeout(r, 300))
    }
  }
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

/**
 * A session lives on one server: containers of this Berth home found on another server than their
 * session's (a move's source that a stop interrupted before its clean-up) are removed.
 */
export async function sweepLeftovers(svc: SnapshotService, servers: string[]): Promise<void> {
  const ctx = svc.ctx
  for (const server of servers) {
    try {
      const engine = ctx.engines.get(server)
      await engine.ready()
      const list = await engine.docker.listContainers({ all: true, filters: { label: [`${LABEL_HOME}=${ctx.homeId}`] } })
      for (const c of list) {
        const id = c.Labels?.[LABEL_SESSION]
        const row = id ? ctx.sessionsRepo.get(id) : undefined
        if (!row || row.server === server || !['running', 'paused', 'finished', 'failed'].includes(row.state)) continue
        if (svc.keeps(row.id, server)) continue
        await removeContainerAndVolume(engine.docker, row.id).catch(() => undefined)
        ctx.lifecycle.note(row.id, 'move-leftover-removed', { server })
      }
    } catch {
      // unreachable now: swept on a later start
    }
  }
}

/** After a crash in the middle of a move: the source was never touched, so the session is paused there. */
export async function recoverMove(svc: SnapshotService, row: SessionRow, to: string | null): Promise<void> {
  if (to && to !== row.server) {
    try {
      const target = svc.ctx.engines.get(to)
      await target.ready()
      await undoTarget(svc, target, row)
    } catch (e) {
      svc.ctx.lifecycle.note(row.id, 'move-recovery', { leftover: to, reason: oneSentence((e as Error).message) })
    }
  }
  svc.ctx.lifecycle.transition(row.id, { from: ['moving'], to: 'paused', verb: 'recover', detail: { outcome: `Berth stopped during a move; the session is paused on ${row.server}` } })
}
