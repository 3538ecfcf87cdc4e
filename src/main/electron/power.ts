// powerMonitor -> the core's power policy: the OS says it is about to sleep or has woken up. The
// core pauses (durably) or resumes per the sleep setting; a failure is logged and notified.
import { powerMonitor } from 'electron'
import type { Core } from '../core/core'
import { log } from '../daemon'
import { notify } from './notifications'
import { silentOwner } from '../core/streams/stream-hub'

export function forwardPowerEvents(core: Core): void {
  const send = (event: 'suspend' | 'resume') => {
    const owner = silentOwner('power')
    void core.call('power.event', { event }, { owner, door: 'ipc' }).then((r) => {
      if ('error' in r) {
        log(`power ${event}: ${r.error.message}`)
        notify(event === 'suspend' ? 'Sessions were not paused before sleep' : 'Sessions were not resumed', r.error.message)
      }
    })
  }
  powerMonitor.on('suspend', () => send('suspend'))
  powerMonitor.on('resume', () => send('resume'))
}
