// Only one process drives the engines for a home. When the app starts while a headless
// `berth daemon` holds it, the app asks that daemon to stop and takes over: the user opened the
// app to see their sessions, and the CLI keeps working through the app's control socket.
import { Core, type CoreOptions } from '../core/core'
import { processExited } from '../core/process-exit'
import { BerthError } from '../../shared/errors'
import { ControlClient, controlSocket } from '../doors/control-client'

export async function openCoreTakingOver(home: string, timeoutMs = 20_000, extra: Partial<CoreOptions> = {}): Promise<Core> {
  try {
    return await Core.open({ ...extra, home, host: 'electron' })
  } catch (e) {
    if (!(e instanceof BerthError) || e.code !== 'busy') throw e
  }
  const client = await ControlClient.connect(controlSocket(home))
  let pid: number
  try {
    const info = await client.call('daemon.info', {})
    if (info.host !== 'daemon') throw new BerthError('busy', `another Berth window (pid ${info.pid}) already drives the engines for ${home}`)
    pid = info.pid
    await client.call('daemon.shutdown', {})
  } finally {
    client.close()
  }
  if (await processExited(pid, timeoutMs, 100)) return await Core.open({ ...extra, home, host: 'electron' })
  throw new BerthError('busy', `the Berth daemon (pid ${pid}) did not stop within ${timeoutMs / 1000} s`)
}
