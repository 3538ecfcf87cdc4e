// A new session made from a snapshot: `session create --from` and each of a fork's sessions. It gets
// its own id, route and workspace branch; its files (and memory, when the snapshot has it and the
// server can restore it) come from the snapshot.
import { shapeOf, shapeOptions } from '../sessions/session-shape'
import type { Limits } from '../../../shared/models'
import type { Session } from '../../../shared/models'
import { BerthError, reasonOf } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { shq } from '../engines/engine'
import { progressOn, type ProgressReporter } from '../progress'
import { newRouteId, newSessionId } from '../sessions/session-ids'
import { startExec } from '../sessions/exec'
import { creatingRow, removeContainerAndVolume } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotRow } from '../store/snapshots-repo'
import { restoreOnItsServer } from './restore'
import { carryContainer } from './carry'
import { helperContainer, removeContainer, removeImageTag } from './server-steps'
import { LABEL_HOLDER, LABEL_SNAPSHOT, sessionImage } from '../engines/docker-names'
import type { ContainerOutcome } from '../sessions/session-container'
import type { SnapshotService } from './snapshot-service'

export interface FromSnapshotInput {
  snapshot: SnapshotRow
  server?: string | undefined
  name?: string | undefined
  env?: Record<string, string> | undefined
  secrets?: string[] | undefined
  /** 'create' (create --from) or 'fork' */
  verb: string
  op?: string | undefined
  /** bring the snapshot's memory back when it has some (default) */
  memory?: boolean
  /** limits that replace the snapshot's, one by one */
  limits?: Limits | undefined
}

export interface FromSnapshotResult {
  session: Session
  memory: boolean
  note: string | null
}

/** Renames the restored workspace branch (session/<old id>) to the new session's own. */
export async function renameWorkspaceBranch(engine: Engine, containerId: string, from: string, to: string): Promise<void> {
  if (from === to) return
  const script = `cd /workspace 2>/dev/null || exit 0
git rev-parse --verify -q ${shq(`refs/heads/${from}`)} >/dev/null || exit 0
git branch -m ${shq(from)} ${shq(to)}`
  const h = await startExec(engine.docker, containerId, { cmd: ['sh', '-c', script] }, () => undefined)
  await h.exit
}

/**
 * A snapshot started on another server than its own: its parts travel first (only the layers the
 * target lacks, its workspace copy, its memory when both sides can), then the container starts.
 */
async function restoreElsewhere(
  svc: SnapshotService,
  req: { snapshot: SnapshotRow; row: SessionRow; env: Record<string, string>; memory?: boolean | undefined; target: Engine; op?: string | undefined; progress: ProgressReporter },
): Promise<ContainerOutcome & { image: string }> {
  const { snapshot, row, target } = req
  const ctx = svc.ctx
  const transfer = svc.ctx.transfer
  const source = ctx.engines.get(snapshot.server)
  await source.ready()
  const root = (await transfer.canRoot(source.name)) && (await transfer.canRoot(target.name))
  let note: string | null = null
  let carryMemory = false
  if (snapshot.kind === 'memory+disk' && snapshot.checkpoint && req.memory !== false) {
    const support = await ctx.memory.supported(target.name)
    if (!root) note = `memory did not travel: the root helper is not available on ${source.name} or ${target.name}; started from disk`
    else if (!support.memory) note = `memory did not travel: ${support.reason ?? `${target.name} cannot restore checkpoints`}; started from disk`
    else carryMemory = true
  }
  let helper: string | undefined
  try {
    if (!root && snapshot.volumeRef) {
      helper = await helperContainer(source, {
        image: snapshot.imageRef!,
        volume: snapshot.volumeRef,
        labels: { [LABEL_HOLDER]: ctx.homeId, [LABEL_SNAPSHOT]: snapshot.id },
      })
    }
    const key = `${row.id}-from-${snapshot.name}.v${snapshot.version}`
    const out = await carryContainer(transfer, {
      source,
      target,
      homeId: ctx.homeId,
      key,
      row,
      env: req.env,
      image: snapshot.imageRef!,
      root,
      workspaceFrom: root || !helper ? { volume: snapshot.volumeRef! } : { container: helper },
      checkpointFrom: carryMemory ? { container: snapshot.checkpoint!.container, name: snapshot.checkpoint!.name, layout: 'docker' } : undefined,
      progress: req.progress,
    })
    for (const hook of ctx.sessions.beforeStart) await hook({ ...row, containerId: out.containerId }, target, out.containerId)
    let memory = false
    if (carryMemory) {
      const r = await ctx.memory.restore(target.name, out.containerId, snapshot.checkpoint!.name)
      memory = r.memory
      note = r.note
    } else {
      await target.docker.getContainer(out.containerId).start()
    }
    await ctx.sessions.runAfterStart({ ...row, containerId: out.containerId }, target, out.containerId, { kept: memory })
    await transfer.stage.remove(source, key)
    await transfer.stage.remove(target, key)
    return { containerId: out.containerId, image: out.image, memory, note }
  } finally {
    if (helper) await removeContainer(source, helper).catch(() => undefined)
  }
}

export async function sessionFromSnapshot(svc: SnapshotService, input: FromSnapshotInput): Promise<FromSnapshotResult> {
  const snapshot = svc.restorable(input.snapshot.id)
  const ctx = svc.ctx
  const serverName = input.server ?? snapshot.server
  ctx.engines.row(serverName)
  if (input.name && ctx.sessionsRepo.liveNameTaken(input.name)) throw new BerthError('conflict', `a live session is already named ${input.name}`)
  const engine = ctx.engines.get(serverName)
  await engine.ready()
  const id = newSessionId()
  const route = newRouteId((r) => ctx.sessionsRepo.routeTaken(r))
  const d = snapshot.detail
  const env = { ...(d.env ?? {}), ...(input.env ?? {}) }
  const workspace = d.workspace ? { ...d.workspace, branch: `session/${id}` } : null
  const row = creatingRow({
    id,
    name: input.name ?? route,
    server: serverName,
    image: snapshot.imageRef!,
    route,
    env,
    secrets: input.secrets ?? d.secrets ?? [],
    workspace,
    options: { originImage: d.originImage ?? snapshot.imageRef, snapshotHead: snapshot.id, ...shapeOptions(shapeOf(d.shape)), ...(input.limits ? { limits: { ...shapeOf(d.shape).limits, ...input.limits } } : {}) },
  })
  ctx.sessionsRepo.insert(row)
  ctx.lifecycle.note(id, 'created', { server: serverName, from: snapshot.id, route, verb: input.verb })
  ctx.bus.emit('session.changed', ctx.sessions.toModel(row))
  const progress = progressOn(ctx.bus, input.op, id, serverName)
  progress.stage('restore', `starting ${row.name} from ${snapshot.id} on ${serverName}${serverName !== snapshot.server ? ` (carried from ${snapshot.server})` : ''}`)
  try {
    const out =
      serverName === snapshot.server
        ? await restoreOnItsServer(svc, { snapshot, row, env, memory: input.memory })
        : await restoreElsewhere(svc, { snapshot, row, env, memory: input.memory, target: engine, op: input.op, progress })
    if (workspace && d.workspace) await renameWorkspaceBranch(engine, out.containerId, d.workspace.branch, workspace.branch)
    if (out.memory && route !== d.route) {
      await ctx.memory.renameHost(serverName, out.containerId, route).catch((e: Error) => ctx.lifecycle.note(id, 'hostname-not-set', { reason: e.message }))
    }
    const origin = { verb: input.verb, snapshot: snapshot.id, memory: out.memory, note: out.note, at: nowIso() }
    svc.setOrigin(id, origin)
    const running = ctx.lifecycle.transition(id, {
      from: ['creating'],
      to: 'running',
      verb: input.verb,
      patch: { containerId: out.containerId, image: out.image },
      detail: { from: snapshot.id, memory: out.memory, note: out.note },
    })
    ctx.repo.pin(snapshot.id, id, input.verb)
    progress.done('restore', `session ${running.name} is running on ${serverName}${out.memory ? ' (memory restored)' : snapshot.kind === 'memory+disk' ? ' (from disk)' : ''}`)
    return { session: ctx.sessions.toModel(running), memory: out.memory, note: out.note }
  } catch (e) {
    const reason = reasonOf(e)
    await removeContainerAndVolume(engine.docker, id).catch(() => undefined)
    await removeImageTag(engine, sessionImage(ctx.homeId, id)).catch(() => undefined)
    ctx.lifecycle.transition(id, { from: ['creating'], to: 'failed', verb: input.verb, patch: { failure: reason, containerId: null } })
    if (e instanceof BerthError) throw e
    throw new BerthError('engine', `could not start a session from ${snapshot.id}: ${reason}`)
  }
}
