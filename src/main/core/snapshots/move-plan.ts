// Move, first step: what may move, and how its parts will travel (the root helper's one stream or a
// committed image; its memory or its files). Only reads.
import { BerthError } from '../../../shared/errors'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'
import { containerOf } from '../sessions/container-spec'
import { sessionFinished } from '../sessions/lifecycle'

export interface MemoryPlan {
  carry: boolean
  checkpoint: { container: string; name: string; layout: 'split' | 'docker' } | null
  note: string | null
}

export interface MovePlan {
  /** the session's container on the source */
  containerId: string
  /** the source container's full id and its image */
  info: { Id: string; Image: string }
  /** the root helper runs on both servers */
  root: boolean
  memory: MemoryPlan
  /** names the staged parts on both servers: the same key finds an earlier try's parts */
  key: string
}

/** Refuses what cannot move now; returns the row when it can. */
export function movable(row: SessionRow, to: string): SessionRow {
  if (row.state !== 'paused') {
    if (row.state === 'finished') throw sessionFinished(row, 'move')
    if (row.state === 'running') throw new BerthError('conflict', `session ${row.name} is running: pause it first (berth pause ${row.name}), then resume it --on ${to}`, { state: row.state })
    throw new BerthError('conflict', `cannot move session ${row.name}: it is ${row.state}`, { state: row.state })
  }
  if (!row.durable) throw new BerthError('conflict', `session ${row.name}'s pause is not durable yet; try again in a moment`)
  return row
}

export async function planMove(svc: SnapshotService, transfer: Transfer, row: SessionRow, to: string): Promise<MovePlan> {
  const containerId = containerOf(row)
  const info = await svc.ctx.engines.get(row.server).docker.getContainer(containerId).inspect()
  const root = (await transfer.canRoot(row.server)) && (await transfer.canRoot(to))
  const memory = await memoryPlan(svc, row, to, root)
  return { containerId, info: { Id: info.Id, Image: info.Image }, root, memory, key: `${row.id}-${info.Id.slice(0, 12)}-${to}` }
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
