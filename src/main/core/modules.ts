// Every domain beyond the foundation plugs into the core here, for both hosts (daemon, Electron).
import type { Core } from './core'

export function installModules(_core: Core): void {
  // pause/resume, snapshots, routes and the meter register themselves here as they land
}
