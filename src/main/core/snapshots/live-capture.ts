// A running session's memory, kept with a snapshot without stopping it: one brief freeze in which
// its disk is committed and CRIU dumps its processes with leave-running (server script:
// checkpoint-live), then it runs on. Execs end first (CRIU cannot dump them; terminals reattach).
// Where the server cannot do this, the snapshot holds the disk and says why.
import { BerthError, oneSentence } from '../../../shared/errors'
import { holdExecs } from '../engines/exec-gate'
import type { SessionRow } from '../store/sessions-repo'
import type { MemoryParts } from './memory'

/** The longest a live dump may keep the session frozen; past it the dump is ended, the disk kept. */
export const LIVE_DUMP_BUDGET_MS = 30_000

export interface LiveOutcome {
  /** how long the session's processes stood still (commit and dump) */
  freezeMs: number
  /** the checkpoint left in the session's container, to be copied to the snapshot and removed */
  checkpoint: { container: string; name: string; bytes: number } | null
  /** why the memory was not kept (the snapshot holds the disk) */
  note: string | null
}

/** Whether a running session's snapshot can keep its memory, or why not. */
export async function liveSupport(memory: MemoryParts, row: SessionRow): Promise<{ live: boolean; note: string | null }> {
  if (row.state !== 'running' || !row.containerId) return { live: false, note: null }
  const s = await memory.checkpoints.support(row.server).catch((e: Error) => ({ memory: false, method: null, reason: e.message }))
  if (!s.memory) return { live: false, note: `memory not kept: ${s.reason ?? `server ${row.server} cannot checkpoint`}` }
  if (s.method !== 'fast') {
    return { live: false, note: `memory not kept: a snapshot of a running session needs containerd's client and root on ${row.server} (Docker's checkpoint API would stop the session)` }
  }
  return { live: true, note: null }
}

/** Freezes, commits IMAGE, dumps with leave-running, thaws: the commit of a live capture. */
export async function liveCommitAndDump(memory: MemoryParts, row: SessionRow, image: string, snapshotId: string): Promise<LiveOutcome> {
  const container = row.containerId
  if (!container) throw new BerthError('conflict', `session ${row.name} has no container`)
  const name = `live-${Date.now().toString(36)}`
  const release = await holdExecs(container, `session ${row.name} is being snapshotted with its memory; run it again in a moment`)
  let f: Map<string, string[]>
  try {
    f = await memory.checkpoints
      .runner(row.server)
      .fields(['checkpoint-live', container, name, image, `Berth snapshot ${snapshotId}`, String(LIVE_DUMP_BUDGET_MS)], 'the snapshot with memory')
  } finally {
    release()
  }
  const freezeMs = Number(f.get('freeze-ms')?.[0]) || 0
  const bytes = f.get('bytes')?.[0]
  if (bytes === undefined) {
    const why = f.get('memory-failed')?.[0] ?? 'the memory dump failed'
    return { freezeMs, checkpoint: null, note: `memory not kept: ${oneSentence(why)}` }
  }
  return { freezeMs, checkpoint: { container, name, bytes: Number(bytes) || 0 }, note: null }
}

/** The live checkpoint was copied to the snapshot (or the capture failed): the session's copy goes. */
export async function dropLiveCheckpoint(memory: MemoryParts, server: string, live: LiveOutcome | undefined): Promise<void> {
  if (!live?.checkpoint) return
  await memory.checkpoints.remove(server, live.checkpoint.container, live.checkpoint.name).catch(() => undefined)
}
