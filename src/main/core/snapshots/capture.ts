// Captures a session's disk on its own server into artefacts a snapshot owns: a committed image of
// the container (its writable layer on top of its image) and a copy of its workspace volume. The
// container keeps running: a commit takes about 0.1 s, and a seal does not even freeze it.
import type { Engine } from '../engines/engine'
import { holdExecs } from '../engines/exec-gate'
import { LABEL_HOLDER, LABEL_SNAPSHOT, SNAPSHOT_REPO } from '../engines/docker-names'
import type { SessionRow } from '../store/sessions-repo'
import type { CheckpointRef } from '../store/snapshots-repo'
import { SNAPSHOT_CHECKPOINT, type MemoryParts } from './memory'
import { copyWorkspace, helperContainer, removeContainer, removeImageTag, removeVolume } from './server-steps'
import { containerOf } from '../sessions/container-spec'

export interface DiskCapture {
  imageRef: string
  volumeRef: string
  layerBytes: number
  volumeBytes: number
}

export interface CaptureNames {
  snapshotId: string
  image: string
  volume: string
}

/**
 * `freeze`: pause the container's processes for the instant of the commit (consistent files; what a
 * named snapshot does). Seals do not: they must never stop the session, and a freeze could collide
 * with a checkpoint's own. A freezing commit holds the container's execs as a pause does
 * (engines/exec-gate.ts): an exec still starting would freeze in runc init and wedge the engine.
 */
export async function captureDisk(
  engine: Engine,
  homeId: string,
  row: SessionRow,
  names: CaptureNames,
  freeze: boolean,
  /** commits the image itself (a live memory capture commits within its own freeze) */
  commit?: () => Promise<void>,
): Promise<DiskCapture> {
  const containerId = containerOf(row)
  const container = engine.docker.getContainer(containerId)
  // size=1 asks the engine for the writable layer's size (dockerode passes options as the query)
  const info = (await container.inspect({ size: true } as object)) as unknown as { SizeRw?: number }
  const tag = names.image.slice(SNAPSHOT_REPO.length + 1)
  let committed = false
  let volumeMade = false
  let helper: string | undefined
  try {
    if (commit) await commit()
    else {
      const release = freeze ? await holdExecs(containerId, `session ${row.name} is being snapshotted; run it again in a moment`) : undefined
      try {
        await container.commit({ repo: SNAPSHOT_REPO, tag, pause: freeze, comment: `Berth snapshot ${names.snapshotId}` })
      } finally {
        release?.()
      }
    }
    committed = true
    await engine.docker.createVolume({ Name: names.volume, Labels: { [LABEL_HOLDER]: homeId, [LABEL_SNAPSHOT]: names.snapshotId } })
    volumeMade = true
    helper = await helperContainer(engine, {
      image: names.image,
      volume: names.volume,
      labels: { [LABEL_HOLDER]: homeId, [LABEL_SNAPSHOT]: names.snapshotId },
    })
    const volumeBytes = await copyWorkspace(engine, homeId, containerOf(row), helper)
    return { imageRef: names.image, volumeRef: names.volume, layerBytes: info.SizeRw ?? 0, volumeBytes }
  } catch (e) {
    if (helper) await removeContainer(engine, helper).catch(() => undefined)
    helper = undefined
    if (volumeMade) await removeVolume(engine, names.volume).catch(() => undefined)
    if (committed) await removeImageTag(engine, names.image).catch(() => undefined)
    throw e
  } finally {
    if (helper) await removeContainer(engine, helper).catch(() => undefined)
  }
}

/**
 * Keeps a copy of a session's memory checkpoint with a snapshot: in the checkpoints folder of a
 * never-started holder container made from the snapshot's image (so Docker's own layout and its
 * clean-up apply), its pages hard-linked from the session's checkpoint.
 */
export async function holdCheckpoint(
  engine: Engine,
  memory: MemoryParts,
  homeId: string,
  names: CaptureNames & { holder: string },
  from: { container: string; name: string; bytes: number },
): Promise<CheckpointRef> {
  const holder = await engine.docker.createContainer({
    name: names.holder,
    Image: names.image,
    Entrypoint: ['/bin/sh'],
    Cmd: ['-c', 'exit 0'],
    Labels: { [LABEL_HOLDER]: homeId, [LABEL_SNAPSHOT]: names.snapshotId },
    NetworkDisabled: true,
    HostConfig: { NetworkMode: 'none' },
  })
  try {
    await memory.copy(engine.name, from.container, from.name, holder.id, SNAPSHOT_CHECKPOINT)
  } catch (e) {
    await removeContainer(engine, holder.id).catch(() => undefined)
    throw e
  }
  return { name: SNAPSHOT_CHECKPOINT, container: holder.id, bytes: from.bytes }
}
