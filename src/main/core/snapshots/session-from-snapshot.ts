// A new session made from a snapshot: `session create --from` and each of a fork's sessions. It gets
// its own id, route and workspace branch; its files (and memory, when the snapshot has it and the
// server can restore it) come from the snapshot.
import type { Session } from '../../../shared/models'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { shq } from '../engines/engine'
import { ProgressReporter } from '../progress'
import { newRouteId, newSessionId } from '../routes/route-names'
import { startExec } from '../sessions/exec'
import { removeContainerAndVolume } from '../sessions/session-service'
import { nowIso } from '../store/database'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotRow } from '../store/snapshots-repo'
import { restoreOnItsServer, type RestoreRequest } from './restore'
import { removeImageTag } from './server-steps'
import { sessionImage } from './snapshot-names'
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
  /** brings a memory checkpoint back, when the snapshot has one (the checkpoint module provides it) */
  restoreMemory?: RestoreRequest['restoreMemory']
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

export async function sessionFromSnapshot(svc: SnapshotService, input: FromSnapshotInput): Promise<FromSnapshotResult> {
  const { snapshot } = input
  const ctx = svc.ctx
  const serverName = input.server ?? snapshot.server
  ctx.engines.row(serverName)
  if (serverName !== snapshot.server) {
    throw new BerthError('refused', `snapshot ${snapshot.id} lives on ${snapshot.server}; starting it on ${serverName} needs a move (not available yet)`)
  }
  if (input.name && ctx.sessionsRepo.liveNameTaken(input.name)) throw new BerthError('conflict', `a live session is already named ${input.name}`)
  const engine = ctx.engines.get(serverName)
  await engine.ready()
  const id = newSessionId()
  const route = newRouteId((r) => ctx.sessionsRepo.routeTaken(r))
  const at = nowIso()
  const d = snapshot.detail
  const env = { ...(d.env ?? {}), ...(input.env ?? {}) }
  const workspace = d.workspace ? { ...d.workspace, branch: `session/${id}` } : null
  const row: SessionRow = {
    id,
    name: input.name ?? route,
    server: serverName,
    state: 'creating',
    mode: null,
    pausedBy: null,
    durable: false,
    image: snapshot.imageRef!,
    containerId: null,
    route,
    env,
    secrets: input.secrets ?? d.secrets ?? [],
    workspace,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    savedAt: null,
    failure: null,
    autoPause: true,
    idleAfterSeconds: null,
    options: { originImage: d.originImage ?? snapshot.imageRef, snapshotHead: snapshot.id },
    version: 0,
  }
  ctx.sessionsRepo.insert(row)
  ctx.lifecycle.note(id, 'created', { server: serverName, from: snapshot.id, route, verb: input.verb })
  ctx.bus.emit('session.changed', ctx.sessions.toModel(row))
  const progress = new ProgressReporter((p) => ctx.bus.emit('progress', p), { op: input.op, sessionId: id, server: serverName })
  progress.stage('restore', `starting ${row.name} from ${snapshot.id} on ${serverName}`)
  try {
    const out = await restoreOnItsServer(svc, { snapshot, row, env, restoreMemory: input.restoreMemory })
    if (workspace && d.workspace) await renameWorkspaceBranch(engine, out.containerId, d.workspace.branch, workspace.branch)
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
    svc.markRestored(snapshot.id)
    progress.done('restore', `session ${running.name} is running on ${serverName}${out.memory ? ' (memory restored)' : snapshot.kind === 'memory+disk' ? ' (from disk)' : ''}`)
    return { session: ctx.sessions.toModel(running), memory: out.memory, note: out.note }
  } catch (e) {
    const reason = e instanceof BerthError ? e.message : oneSentence((e as Error).message)
    await removeContainerAndVolume(engine.docker, id).catch(() => undefined)
    await removeImageTag(engine, sessionImage(ctx.homeId, id)).catch(() => undefined)
    ctx.lifecycle.transition(id, { from: ['creating'], to: 'failed', verb: input.verb, patch: { failure: reason, containerId: null } })
    if (e instanceof BerthError) throw e
    throw new BerthError('internal', `could not start a session from ${snapshot.id}: ${reason}`)
  }
}
