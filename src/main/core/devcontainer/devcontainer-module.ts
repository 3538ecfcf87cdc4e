// Plugs sessions from a devcontainer.json into the core: the start hook that runs postStartCommand
// on every boot of a session's container, and the service `session.create --devcontainer` calls.
import type { Core } from '../core'
import type { JobsService } from '../jobs/jobs-service'
import { DevcontainerService } from './devcontainer-service'
import { StartCommands } from './start-commands'

export function installDevcontainer(core: Core, jobs: JobsService): DevcontainerService {
  const starts = new StartCommands(core.sessions, core.sessionsRepo, jobs, core.lifecycle)
  core.sessions.afterStart.push((row, _engine, containerId, start) =>
    // a command that cannot start is in the events log; the session runs all the same
    starts.onStart(row, containerId, start).catch((e: Error) => core.lifecycle.note(row.id, 'post-start-failed', { reason: e.message })),
  )
  return new DevcontainerService(core.sessions, core.engines, core.bus, core.homeId, starts, core.lifecycle)
}
