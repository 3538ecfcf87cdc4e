// Every domain beyond the foundation plugs into the core here, for both hosts (daemon, Electron).
import type { Core } from './core'
import { installDesktop } from './desktop/desktop-module'

export function installModules(core: Core): void {
  // pause/resume, snapshots, routes and the meter register themselves here as they land
  installDesktop(core)
}
