// Every process Berth starts in a container (`docker exec`) goes through here. An exec that is still
// starting when the engine pauses its container for a checkpoint deadlocks both: the exec's runc init
// freezes with the container and the engine waits for that exec before it checkpoints (the server
// script also detects and thaws this, for execs that do not come from Berth). So a pause first holds
// its container: new execs are refused with the reason, and those under way are waited for until
// their process runs.
import type Dockerode from 'dockerode'
import type { Duplex } from 'node:stream'
import { BerthError } from '../../../shared/errors'

export interface OpenedExec {
  exec: Dockerode.Exec
  stream: Duplex
}

interface Starting {
  /** settles once the exec is started (or failed to) */
  started: Promise<Dockerode.Exec | null>
  /** when the engine answered the start; its process may still be setting up for a moment after */
  at: number
}

/** How long after the engine answered a start its process may still be setting up (runc init). */
const SETTLING_MS = 3_000

const starting = new Map<string, Set<Starting>>()
/** the reasons each container is held for, newest last: holds nest (a pause's checkpoint inside the pause) */
const holds = new Map<string, string[]>()

/** Creates and starts an exec in a container, unless a pause holds that container. */
export async function openExec(
  docker: Dockerode,
  containerId: string,
  create: Dockerode.ExecCreateOptions,
  start: Dockerode.ExecStartOptions,
): Promise<OpenedExec> {
  const held = holds.get(containerId)
  if (held?.length) throw new BerthError('conflict', held[held.length - 1]!)
  let resolveStarted!: (e: Dockerode.Exec | null) => void
  const entry: Starting = { started: new Promise((r) => (resolveStarted = r)), at: Number.POSITIVE_INFINITY }
  const set = starting.get(containerId) ?? new Set<Starting>()
  starting.set(containerId, set)
  set.add(entry)
  let exec: Dockerode.Exec | null = null
  try {
    exec = await docker.getContainer(containerId).exec(create)
    const stream = (await exec.start(start)) as Duplex
    entry.at = Date.now()
    return { exec, stream }
  } catch (e) {
    exec = null
    throw e
  } finally {
    resolveStarted(exec)
    const forget = () => {
      set.delete(entry)
      if (set.size === 0 && starting.get(containerId) === set) starting.delete(containerId)
    }
    if (exec) setTimeout(forget, SETTLING_MS).unref()
    else forget()
  }
}

/**
 * Holds a container for a pause: from now on openExec refuses with `why`; resolves once every exec
 * under way runs its process (or `ms` passed). Returns the release.
 */
export async function holdExecs(containerId: string, why: string, ms = 5_000): Promise<() => void> {
  const list = holds.get(containerId) ?? []
  holds.set(containerId, list)
  list.push(why)
  let released = false
  const release = () => {
    if (released) return
    released = true
    const cur = holds.get(containerId)
    const at = cur ? cur.lastIndexOf(why) : -1
    if (cur && at >= 0) cur.splice(at, 1)
    if (cur && cur.length === 0) holds.delete(containerId)
  }
  const deadline = Date.now() + ms
  for (const s of [...(starting.get(containerId) ?? [])]) {
    const exec = await Promise.race([s.started, sleep(Math.max(0, deadline - Date.now())).then(() => null)])
    if (exec && Date.now() - s.at < SETTLING_MS) await untilRunsItsProcess(exec, deadline)
  }
  return release
}

/** An exec's process runs once the engine knows its pid (or it has already ended). */
async function untilRunsItsProcess(exec: Dockerode.Exec, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const info = await exec.inspect().catch(() => null)
    if (!info || !info.Running || (info.Pid ?? 0) > 0) return
    await sleep(50)
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))
