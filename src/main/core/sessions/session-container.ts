// Makes a session's container again on a server (restart, a move, a fork, a rewind, a session from a
// snapshot): the same name, labels, hostname (route) and mounts as at creation, the session's env,
// then the same hooks as a fresh create (secrets are installed after every start).
import { reasonOf } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { SessionRow } from '../store/sessions-repo'
import { containerSpec } from './container-spec'
import { containerName, volumeName, LABEL_HOME, LABEL_SESSION } from '../engines/docker-names'
import type { SessionService } from './session-service'
import { isNotFound } from '../engines/docker-errors'
import { shapeOf } from './session-shape'

export interface ContainerPlan {
  row: SessionRow
  image: string
  env: Record<string, string>
  /** fill a fresh /workspace from this container's /workspace (same engine) before starting */
  fillFrom?: (intoContainer: string) => Promise<void>
  /**
   * Start from a memory checkpoint: places it and starts the container from it, answering whether
   * the memory came back (a restore that fails boots from disk and says why).
   */
  restore?: (containerId: string) => Promise<{ memory: boolean; note: string | null }>
}

export interface ContainerOutcome {
  containerId: string
  memory: boolean
  note: string | null
}

export async function ensureWorkspaceVolume(engine: Engine, sessionId: string, homeId: string): Promise<boolean> {
  try {
    await engine.docker.getVolume(volumeName(sessionId)).inspect()
    return false
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
  await engine.docker.createVolume({ Name: volumeName(sessionId), Labels: { [LABEL_SESSION]: sessionId, [LABEL_HOME]: homeId } })
  return true
}

/** Removes the session's container on this engine if one is there (the workspace volume stays). */
export async function removeSessionContainer(engine: Engine, sessionId: string): Promise<void> {
  try {
    await engine.docker.getContainer(containerName(sessionId)).remove({ force: true, v: true })
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
}

export async function startSessionContainer(
  sessions: SessionService,
  engine: Engine,
  homeId: string,
  plan: ContainerPlan,
): Promise<ContainerOutcome> {
  const { row } = plan
  await ensureWorkspaceVolume(engine, row.id, homeId)
  const container = await engine.docker.createContainer(
    containerSpec({ id: row.id, route: row.route, image: plan.image, env: plan.env, home: homeId, secrets: row.secrets.length > 0, shape: shapeOf(row.options) }),
  )
  const containerId = container.id
  if (plan.fillFrom) await plan.fillFrom(containerId)
  const started = { ...row, containerId, env: plan.env, image: plan.image }
  for (const hook of sessions.beforeStart) await hook(started, engine, containerId)
  let memory = false
  let note: string | null = null
  if (plan.restore) {
    try {
      const r = await plan.restore(containerId)
      memory = r.memory
      note = r.note
    } catch (e) {
      note = `memory did not come along: ${reasonOf(e)}; started from disk`
    }
  }
  if (!memory) {
    const info = await container.inspect()
    if (!info.State.Running) await container.start()
  }
  await sessions.runAfterStart(started, engine, containerId, { kept: memory })
  return { containerId, memory, note }
}
