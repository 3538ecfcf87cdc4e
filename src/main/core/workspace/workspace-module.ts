// Plugs save, workspace status and the unsaved-work guard of finish into the core.
import type { Core } from '../core'
import { cloneIntoSession, readWorkspace } from './workspace-clone'
import { WorkspaceService } from './workspace-service'

export function installWorkspace(core: Core): WorkspaceService {
  const ws = new WorkspaceService(core.db, core.sessions, core.sessionsRepo, core.engines, core.lifecycle, core.bus, core.homeId)
  // `create --workspace DIR`: the folder is read (and refused) before anything exists, cloned once the container runs
  core.sessions.onCreate(async (input, id) => {
    if (!input.workspace) return undefined
    const workspace = await readWorkspace(input.workspace, id)
    return {
      row: { workspace },
      afterStart: async (engine, containerId, progress) => {
        progress.stage('workspace', `cloning ${workspace.dir} into /workspace`)
        await cloneIntoSession(engine.docker, containerId, workspace)
      },
    }
  })
  core.use(
    {},
    {
      'workspace.save': (a) => ws.save(a.id, a.message, a.op),
      'workspace.status': (a) => ws.status(a.id),
      'session.finish': async (a) => {
        await ws.guardFinish(a.id, a.force === true)
        return await core.sessions.finish(a.id)
      },
    },
  )
  return ws
}
