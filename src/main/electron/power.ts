// powerMonitor -> the core's power policy: the OS says it is about to sleep or has woken up.
import { powerMonitor } from 'electron'
import { isCallName } from '../../shared/contract'
import type { Core } from '../core/core'
import { log } from '../daemon'

export function forwardPowerEvents(core: Core): void {
  const send = (event: 'suspend' | 'resume') => {
    const name = 'power.event'
    if (!isCallName(name)) return log(`power ${event}: this build has no power policy yet`)
    const owner = { id: 'power', send: () => undefined }
    void core.call(name, { event }, { owner, door: 'ipc' }).then((r) => {
      if ('error' in r) log(`power ${event}: ${r.error.message}`)
    })
  }
  powerMonitor.on('suspend', () => send('suspend'))
  powerMonitor.on('resume', () => send('resume'))
}
