// `berth daemon --foreground`: the headless host of the core, behind the control socket.
import type { Server } from 'node:net'
import { Core } from './core/core'
import { installModules } from './core/modules'
import { listenControlSocket } from './doors/control-socket'
import { installServe } from './serve'

export interface RunningDaemon {
  core: Core
  stop(): Promise<void>
  stopped: Promise<void>
}

export async function runDaemon(home: string): Promise<RunningDaemon> {
  const core = await Core.open({ home, host: 'daemon' })
  installModules(core)
  installServe(core)
  let server: Server | undefined
  let resolveStopped: () => void = () => undefined
  const stopped = new Promise<void>((r) => (resolveStopped = r))
  let stopping: Promise<void> | undefined
  const stop = () =>
    (stopping ??= (async () => {
      server?.close()
      await core.close()
      resolveStopped()
    })())
  core.onShutdownRequest = () => void stop()
  try {
    server = await listenControlSocket(core, home)
  } catch (e) {
    await core.close()
    throw e
  }
  // Recovery and background work start after the socket is up, so the CLI never waits on them.
  void core.start().catch((e: Error) => log(`start-up work failed: ${e.message}`))
  return { core, stop, stopped }
}

export function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`)
}
