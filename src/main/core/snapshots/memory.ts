// Memory checkpoints for snapshots, fork, rewind and moves, on top of the checkpoint primitive that
// pause and resume use (checkpoints/): a paused session's checkpoint is copied (pages hard-linked)
// into a snapshot's holder container, and from there into any new container on the same server,
// which then starts from it through the same restore path as a resume (with its honest fallback).
import type { Checkpoints } from '../checkpoints/checkpoints'
import { whileHeld } from '../checkpoints/criu-hold'
import type { EngineRegistry } from '../engines/engine-registry'
import type { PauseService } from '../pause/pause-service'
import type { SessionRow } from '../store/sessions-repo'

/** The checkpoint's name inside a snapshot's holder and inside containers made from it. */
export const SNAPSHOT_CHECKPOINT = 'berth'

export class MemoryParts {
  constructor(
    readonly pause: PauseService,
    private readonly engines: EngineRegistry,
  ) {}

  get checkpoints(): Checkpoints {
    return this.pause.checkpoints
  }

  /** The memory checkpoint a paused session's container holds (its latest pause), if any. */
  pausedCheckpoint(row: SessionRow): { container: string; name: string; bytes: number; layout: 'split' | 'docker' } | null {
    if (row.state !== 'paused' || row.mode !== 'memory' || !row.containerId) return null
    const p = this.pause.latestPause(row.id)
    if (!p || p.status !== 'durable' || !p.checkpoint) return null
    return { container: row.containerId, name: p.checkpoint, bytes: p.bytes, layout: p.detail.layout === 'split' ? 'split' : 'docker' }
  }

  async supported(server: string): Promise<{ memory: boolean; reason: string | null }> {
    const s = await this.checkpoints.support(server).catch((e: Error) => ({ memory: false, reason: e.message }))
    return { memory: s.memory, reason: s.reason }
  }

  /** Copies a checkpoint between two containers of one server (Docker's plain layout). */
  async copy(server: string, from: string, name: string, to: string, newName = name): Promise<void> {
    await this.checkpoints.runner(server).fields(['checkpoint-copy', from, name, to, newName], 'copying the memory checkpoint')
  }

  /** A session restored from another's memory takes its own hostname (its route) back. */
  async renameHost(server: string, containerId: string, name: string): Promise<void> {
    await this.checkpoints.runner(server).fields(['set-hostname', containerId, name], 'setting the hostname')
  }

  /**
   * Starts a container from a checkpoint it holds: straight through the Docker API (a millisecond a
   * call), else through the server job, which retries and, failing that, boots from disk and says why.
   */
  async restore(server: string, containerId: string, name: string): Promise<{ memory: boolean; note: string | null }> {
    const c = this.engines.get(server).docker.getContainer(containerId)
    try {
      // not while a lazy resume's config is in place on that server (criu-hold.ts)
      await whileHeld(this.checkpoints.runner(server), async () => {
        try {
          await c.start({ _query: { checkpoint: name }, _body: {} } as object)
        } catch (e) {
          // Docker may re-upload a byte-identical tar its GC has not removed yet: a second later it works
          if (!/already exists/i.test((e as Error).message)) throw e
          await new Promise((r) => setTimeout(r, 1000))
          await c.start({ _query: { checkpoint: name }, _body: {} } as object)
        }
      })
      if ((await c.inspect()).State.Running) return { memory: true, note: null }
    } catch {
      // the server job below knows the remedies
    }
    const r = await this.checkpoints.restore(server, containerId, name)
    return { memory: r.restored === 'memory', note: r.restored === 'memory' ? null : `memory did not come back: ${r.fallback ?? 'the restore failed'}; started from disk` }
  }
}
