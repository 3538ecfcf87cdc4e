// Every domain beyond the foundation plugs into the core here, for both hosts (daemon, Electron).
import type { Core } from './core'
import { installDesktop } from './desktop/desktop-module'
import { installDevcontainer } from './devcontainer/devcontainer-module'
import { installDoctor } from './doctor/doctor-module'
import { installJobs } from './jobs/jobs-module'
import { installMeter } from './meter/meter-module'
import { installPause } from './pause/pause-module'
import { installPower } from './power/power-module'
import { installReplicas } from './replicas/replicas-module'
import { installRoutes } from './routes/routes-module'
import { installSecrets } from './secrets/secrets-module'
import { installServices } from './services/services-module'
import { installSnapshots } from './snapshots/snapshots-module'
import { installWorkspace } from './workspace/workspace-module'

export function installModules(core: Core): void {
  // pause/resume: its service is what other domains call in-process (the ssh gateway, move)
  const pause = installPause(core)
  installPower(core, pause)
  installMeter(core)
  // after the meter: its limits go beside the meter's use
  installServices(core)
  installRoutes(core, pause)
  installDesktop(core)
  const secrets = installSecrets(core)
  installWorkspace(core)
  const jobs = installJobs(core)
  // after the secrets and the workspace: postStartCommand runs once they are in place
  const devcontainers = installDevcontainer(core, jobs)
  const snapshots = installSnapshots(core, secrets, pause, devcontainers)
  installReplicas(core, snapshots)
  // last: it reads the other domains through their calls
  installDoctor(core)
}
