// Plugs snapshots, seals, fork, rewind, restart, move and sessions made from snapshots into the core:
// builds the service, follows the sessions (snapshots-module-follow.ts), answers the calls (snapshots-module-calls.ts).
import type { Core } from '../core'
import type { DevcontainerService } from '../devcontainer/devcontainer-service'
import type { Secrets } from '../secrets/secrets-module'
import { SnapshotsRepo } from '../store/snapshots-repo'
import type { PauseService } from '../pause/pause-service'
import { MemoryParts } from './memory'
import { sweepLeftovers } from './move'
import { Transfer } from './transfer'
import { Sealer } from './sealer'
import { snapshotCalls } from './snapshots-module-calls'
import { SnapshotService } from './snapshot-service'
import { diff, diffFile } from './diff'
import { timeline } from './timeline'
import { followSessions } from './snapshots-module-follow'

export interface SnapshotsModule {
  service: SnapshotService
  sealer: Sealer
  transfer: Transfer
}

export function installSnapshots(core: Core, secrets: Secrets, pause: PauseService, devcontainers: DevcontainerService): SnapshotsModule {
  const transfer = new Transfer(pause.checkpoints, core.homeId)
  const service = new SnapshotService({
    memory: new MemoryParts(pause, core.engines),
    transfer,
    repo: new SnapshotsRepo(core.db),
    sessionsRepo: core.sessionsRepo,
    sessions: core.sessions,
    engines: core.engines,
    lifecycle: core.lifecycle,
    bus: core.bus,
    settings: core.settings,
    homeId: core.homeId,
  })
  const sealer = new Sealer(service)
  followSessions(core, service)
  core.use(
    {
      start: async () => {
        await service.reconcile()
        void sweepLeftovers(service, core.servers.list().map((s) => s.name))
        sealer.start()
      },
      stop: () => sealer.stop(),
    },
    {
      ...snapshotCalls(core, service, transfer, secrets, devcontainers),
      // the snapshot browser
      'snapshot.timeline': (a) => timeline(service, a.session),
      'snapshot.diff': (a) => diff(service, a),
      'snapshot.diffFile': (a) => diffFile(service, a),
    },
  )
  return { service, sealer, transfer }
}
