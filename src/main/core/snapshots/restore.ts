// Makes a session's container from a snapshot on the snapshot's server: the snapshot's image under
// the session's own tag, a fresh /workspace filled from the snapshot's volume copy, then the same
// start as any session (hooks, secrets). Memory, when the snapshot has it, comes back through the
// checkpoint restore; when it cannot, the session boots from disk and the outcome says so.
import type { Engine } from '../engines/engine'
import { startSessionContainer, type ContainerOutcome } from '../sessions/session-container'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotRow } from '../store/snapshots-repo'
import { copyWorkspace, helperContainer, removeContainer } from './server-steps'
import { LABEL_HOLDER, LABEL_SNAPSHOT, SESSION_REPO, sessionImage } from '../engines/docker-names'
import { SNAPSHOT_CHECKPOINT } from './memory'
import type { SnapshotService } from './snapshot-service'

export interface RestoreRequest {
  snapshot: SnapshotRow
  /** the session being made (new for create --from and fork, the same one for a rewind) */
  row: SessionRow
  env: Record<string, string>
  /** bring the snapshot's memory back when it has some (default); false boots from its files */
  memory?: boolean
}

export interface RestoreResult extends ContainerOutcome {
  image: string
}

/** Brings a snapshot's memory into a new container of its server: copy the checkpoint, restore. */
export function memoryRestore(svc: SnapshotService, snapshot: SnapshotRow, wanted = true): ((containerId: string) => Promise<{ memory: boolean; note: string | null }>) | undefined {
  if (!wanted || snapshot.kind !== 'memory+disk' || !snapshot.checkpoint) return undefined
  const cp = snapshot.checkpoint
  return async (containerId) => {
    const memory = svc.ctx.memory
    const support = await memory.supported(snapshot.server)
    if (!support.memory) return { memory: false, note: `memory did not come back: ${support.reason ?? 'the server cannot restore checkpoints'}; started from disk` }
    await memory.copy(snapshot.server, cp.container, cp.name, containerId, SNAPSHOT_CHECKPOINT)
    return await memory.restore(snapshot.server, containerId, SNAPSHOT_CHECKPOINT)
  }
}

/** Points the session's own tag at an image, so its container never depends on a snapshot's tag. */
export async function tagForSession(engine: Engine, homeId: string, sessionId: string, image: string): Promise<string> {
  const ref = sessionImage(homeId, sessionId)
  await engine.docker.getImage(image).tag({ repo: SESSION_REPO, tag: ref.slice(SESSION_REPO.length + 1) })
  return ref
}

/** Copies a snapshot's /workspace into a fresh container's /workspace (same server). */
export async function fillWorkspaceFromSnapshot(engine: Engine, homeId: string, snapshot: SnapshotRow, into: string): Promise<void> {
  if (!snapshot.volumeRef) return
  const helper = await helperContainer(engine, {
    image: snapshot.imageRef!,
    volume: snapshot.volumeRef,
    labels: { [LABEL_HOLDER]: homeId, [LABEL_SNAPSHOT]: snapshot.id },
  })
  try {
    await copyWorkspace(engine, homeId, helper, into)
  } finally {
    await removeContainer(engine, helper).catch(() => undefined)
  }
}

export async function restoreOnItsServer(svc: SnapshotService, req: RestoreRequest): Promise<RestoreResult> {
  const { snapshot, row } = req
  const engine = svc.ctx.engines.get(snapshot.server)
  await engine.ready()
  const image = await tagForSession(engine, svc.ctx.homeId, row.id, snapshot.imageRef!)
  const outcome = await startSessionContainer(svc.ctx.sessions, engine, svc.ctx.homeId, {
    row,
    image,
    env: req.env,
    fillFrom: (into) => fillWorkspaceFromSnapshot(engine, svc.ctx.homeId, snapshot, into),
    restore: memoryRestore(svc, snapshot, req.memory),
  })
  return { ...outcome, image }
}
