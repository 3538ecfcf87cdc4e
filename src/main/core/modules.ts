// Every domain beyond the foundation plugs into the core here, for both hosts (daemon, Electron).
import type { Core } from './core'
import { installPause } from './pause/pause-module'

export function installModules(core: Core): void {
  // pause/resume (its service is what other domains call in-process: the ssh gateway, move)
  installPause(core)
}
