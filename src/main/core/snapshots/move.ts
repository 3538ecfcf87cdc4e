// Move: a paused session goes to another server and (with resume) continues there. It keeps its id,
// its views and its route. What travels: the image layers the target lacks, its writable layer, its
// workspace volume and its memory checkpoint; where memory cannot travel (no CRIU or root helper on
// a side, a frozen pause, a restore that fails) it boots from its files and the result says so.
// The source is only read until the target runs: a cut transfer leaves the session paused where it
// was, and the next try continues from the bytes that already arrived. Its steps: plan (move-plan),
// carry (move-carry), commit (move-commit).
import type { z } from 'zod'
import type { MoveResult } from '../../../shared/contract/snapshots'
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import { progressOn } from '../progress'
import { LABEL_HOME, sessionOfContainer } from '../engines/docker-names'
import { removeContainerAndVolume } from '../sessions/session-service'
import type { SessionRow } from '../store/sessions-repo'
import { carryMove, sourceImage, undoTarget } from './move-carry'
import { commitMove } from './move-commit'
import { movable, planMove } from './move-plan'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'

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
    const row = movable(ctx.sessions.resolve(first.id), args.to)
    const source = ctx.engines.get(row.server)
    const target = ctx.engines.get(args.to)
    await Promise.all([source.ready(), target.ready()])
    const t0 = performance.now()
    const progress = progressOn(ctx.bus, args.op, row.id, args.to)
    const from = row.server
    ctx.lifecycle.transition(row.id, { from: ['paused'], to: 'moving', verb: 'move', detail: { from, to: args.to, resume: !!args.resume } })
    let made = false
    try {
      const plan = await planMove(svc, transfer, row, args.to)
      const image = await sourceImage(svc, source, row, plan, progress)
      made = true
      const out = await carryMove(svc, transfer, { source, target, row, plan, image, progress })
      const { final, memory, note } = await commitMove(svc, transfer, { source, target, row, plan, out, to: args.to, resume: !!args.resume, progress })
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
      throw new BerthError('transfer', `could not move ${row.name} to ${args.to}: ${reason}; it is still paused on ${from}`)
    }
  })
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
        const id = sessionOfContainer(c.Labels)
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
