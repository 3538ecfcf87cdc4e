// "Pause all and wait" from the tray: the lid-close path by hand, through the same contract call
// as `berth pause --all --wait`; the answer says what each session kept, or why it failed.
import type { PauseAllResult } from '../../shared/contract'
import type { Core } from '../core/core'
import { silentOwner } from '../core/streams/stream-hub'

export function describePauseAll(r: PauseAllResult): { ok: boolean; message: string } {
  const failed = r.results.filter((x) => x.error)
  const paused = r.results.filter((x) => x.result?.paused)
  const durable = paused.filter((x) => x.result?.paused && x.result.durable)
  const frozen = paused.filter((x) => x.result?.paused && !x.result.durable)
  const modes = [...new Set(durable.map((x) => (x.result?.paused ? x.result.mode : '')))].join(', ')
  if (r.results.length === 0) return { ok: true, message: 'No session was running.' }
  const parts = [
    durable.length ? `${durable.length} session(s) paused and safe on disk (${modes})` : '',
    frozen.length ? `${frozen.length} frozen with files safe, memory written later (${frozen.map((x) => x.name).join(', ')})` : '',
    failed.length ? `${failed.length} failed: ${failed.map((x) => `${x.name}: ${x.error!.message}`).join('; ')}` : '',
  ].filter(Boolean)
  if (failed.length === 0 && frozen.length === 0) return { ok: true, message: `${parts[0]}.` }
  return { ok: false, message: `${parts.join('; ')}.` }
}

export async function pauseAllAndWait(core: Core): Promise<{ ok: boolean; message: string }> {
  const owner = silentOwner('tray')
  const envelope = await core.call('session.pauseAll', { wait: true }, { owner, door: 'ipc' })
  if ('error' in envelope) throw new Error(envelope.error.message)
  return describePauseAll(envelope.result as PauseAllResult)
}
