// The common resume through the Docker API (a millisecond a call, where the docker CLI costs
// 100-200 ms on a small server): restore, thaw or start, then check the container really runs.
// Anything unusual (a restore that failed: unfold the pages and retry, or cold-boot) is left to the
// server job, which also survives a dropped connection.
import type { PauseMode } from '../../../shared/models'
import type { Checkpoints } from '../checkpoints/checkpoints'
import type { EngineRegistry } from '../engines/engine-registry'
import { holdCriu, type CriuHold } from '../checkpoints/criu-hold'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What the pause job needs to know and would otherwise ask the docker CLI: id, init's pid, writable layer, volumes. */
export async function containerFacts(engines: EngineRegistry, server: string, containerId: string): Promise<string[]> {
  try {
    const info = await engines.get(server).docker.getContainer(containerId).inspect()
    const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir
    if (!info.State.Running || info.State.Paused || !info.State.Pid || !upper) return []
    const sources = (info.Mounts ?? []).map((m) => m.Source).filter((p): p is string => !!p && !/\s/.test(p))
    return [info.Id, String(info.State.Pid), upper, ...sources]
  } catch {
    return [] // the job inspects for itself
  }
}

/**
 * Brings the container back in `mode`; answers the mode it came back in, or null when the server
 * job must take over. Throws on a dropped connection or an engine error.
 */
export async function resumeDirect(
  engines: EngineRegistry,
  checkpoints: Checkpoints,
  server: string,
  containerId: string,
  mode: PauseMode,
  checkpoint: string,
  splitLayout: boolean,
  opts: { lazyArmed?: boolean } = {},
): Promise<PauseMode | null> {
  // a restore in full holds the server's CRIU lock (criu-hold.ts), asked for beside the inspects;
  // an armed lazy restore is the one whose config is in place (its keeper holds the lock)
  const hold = mode === 'memory' && !opts.lazyArmed ? holdCriu(checkpoints.runner(server)) : null
  try {
    return await restoreHeld(engines, checkpoints, server, containerId, mode, checkpoint, splitLayout, hold)
  } finally {
    void hold?.then((h) => 'release' in h && h.release())
  }
}

async function restoreHeld(
  engines: EngineRegistry,
  checkpoints: Checkpoints,
  server: string,
  containerId: string,
  mode: PauseMode,
  checkpoint: string,
  splitLayout: boolean,
  hold: Promise<CriuHold> | null,
): Promise<PauseMode | null> {
  const c = engines.get(server).docker.getContainer(containerId)
  let info = await c.inspect()
  // a checkpoint's exit that Docker has not recorded yet
  for (let i = 0; mode === 'memory' && i < 150 && info.State.Running && !info.State.Paused; i++) {
    await sleep(20)
    info = await c.inspect()
  }
  const before = info.State.StartedAt
  // Docker's start of a running container is a silent no-op: only a new StartedAt proves a start
  const restarted = async () => {
    const now = await c.inspect()
    return now.State.Running && !now.State.Paused && now.State.StartedAt !== before
  }
  if (mode === 'frozen') {
    if (!info.State.Paused) return null
    await c.unpause()
    const now = await c.inspect()
    return now.State.Running && !now.State.Paused ? 'frozen' : null
  }
  if (info.State.Running) return null
  if (mode === 'memory') {
    // the server job waits for the lock again, and says why it could not have it
    if (hold && 'why' in (await hold)) return null
    // dockerode sends options as the query and the body alike; Docker refuses a body on start
    const start = () => c.start({ _query: { checkpoint }, _body: {} } as object)
    try {
      await start()
    } catch (e) {
      // Docker re-uploads a byte-identical tar that its GC has not removed yet: a second later it works
      if (!/already exists/i.test((e as Error).message)) return null
      await sleep(1000)
      await start().catch(() => undefined)
    }
    if (!(await restarted())) return null
    if (splitLayout) void afterRestore(engines, checkpoints, server, containerId, checkpoint)
    return 'memory'
  }
  await c.start()
  return (await restarted()) ? 'disk' : null
}

/** containerd 1.6 leaves its extraction folder behind on every restore: removed off the critical path. */
async function afterRestore(engines: EngineRegistry, checkpoints: Checkpoints, server: string, containerId: string, checkpoint: string): Promise<void> {
  try {
    const info = await engines.get(server).docker.getContainer(containerId).inspect()
    const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir ?? ''
    const root = upper.includes('/overlay2/') ? upper.slice(0, upper.indexOf('/overlay2/')) : ''
    if (root) await checkpoints.runner(server).run(['after-restore', info.Id, root, checkpoint])
  } catch {
    // best effort: the folders are small with the split layout
  }
}
