// Every domain beyond the foundation plugs into the core here, for both hosts (daemon, Electron).
import type { Core } from './core'
import { installSecrets } from './secrets/secrets-module'
import { installSnapshots } from './snapshots/snapshots-module'
import { installWorkspace } from './workspace/workspace-module'

export function installModules(core: Core): void {
  // pause/resume, routes and the meter register themselves here as they land
  const secrets = installSecrets(core, core.options.secretStore)
  installWorkspace(core)
  installSnapshots(core, secrets)
}
