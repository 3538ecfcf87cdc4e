// Steps that run on a session's server with its own docker CLI (through the server script), so the
// bytes never leave the server (copying a workspace volume, making a never-started helper
// container). `docker cp` needs no tool inside the image: the engine itself reads and writes the
// container's mounts.
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { runnerFor } from '../engines/server-script/server-runner'
import { isNotFound } from '../engines/docker-errors'

/**
 * Copies /workspace of one container into /workspace of another on the same engine, keeping owners
 * and modes. Either side may be stopped or never started. Returns the bytes copied (tar size).
 */
export async function copyWorkspace(engine: Engine, homeId: string, from: string, to: string): Promise<number> {
  return Number(await runnerFor(engine, homeId).field(['copy-workspace', from, to], 'bytes', 'copying the workspace')) || 0
}

/** A never-started container with `volume` at /workspace, to copy a volume in or out. */
export async function helperContainer(engine: Engine, opts: { image: string; volume: string; labels: Record<string, string>; name?: string }): Promise<string> {
  const c = await engine.docker.createContainer({
    name: opts.name,
    Image: opts.image,
    Entrypoint: ['/bin/sh'],
    Cmd: ['-c', 'exit 0'],
    Labels: opts.labels,
    NetworkDisabled: true,
    HostConfig: { Mounts: [{ Type: 'volume', Source: opts.volume, Target: '/workspace' }], NetworkMode: 'none' },
  })
  return c.id
}

export async function removeContainer(engine: Engine, idOrName: string): Promise<void> {
  try {
    await engine.docker.getContainer(idOrName).remove({ force: true, v: true })
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
}

export async function removeVolume(engine: Engine, name: string): Promise<void> {
  try {
    await engine.docker.getVolume(name).remove()
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
}

/** Removes one tag; the image itself goes only when nothing else holds it (never forced). */
export async function removeImageTag(engine: Engine, ref: string): Promise<void> {
  try {
    await engine.docker.getImage(ref).remove({ noprune: false })
  } catch (e) {
    const code = (e as { statusCode?: number }).statusCode
    if (code === 404) return
    if (code === 409) {
      // Containers are made from per-session tags, so this means someone made a container from
      // a snapshot's tag by hand: it keeps the image, and the snapshot stays until it is gone.
      throw new BerthError('conflict', `the image ${ref} is still used by a container on ${engine.name}`)
    }
    throw e
  }
}

export async function volumeExists(engine: Engine, name: string): Promise<boolean> {
  try {
    await engine.docker.getVolume(name).inspect()
    return true
  } catch (e) {
    if (isNotFound(e)) return false
    throw e
  }
}

/** Flushes the server's file systems, so what was just written survives a power cut. */
export async function syncServer(engine: Engine, homeId: string): Promise<void> {
  await runnerFor(engine, homeId).run(['sync-all']).catch(() => undefined)
}
