// "Pause all and wait" from the tray: the lid-close path by hand, through the same contract call
// the CLI's `berth pause --all --wait` uses.
import type { Core } from '../core/core'
import { isCallName } from '../../shared/contract'

export async function pauseAllAndWait(core: Core): Promise<{ message: string }> {
  const name = 'session.pauseAll'
  if (!isCallName(name)) throw new Error('this build of Berth cannot pause sessions yet')
  const owner = { id: 'tray', send: () => undefined }
  const envelope = await core.call(name, { wait: true }, { owner, door: 'ipc' })
  if ('error' in envelope) throw new Error(envelope.error.message)
  return { message: 'Every running session is paused and safe on disk.' }
}
