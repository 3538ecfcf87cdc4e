// The calls the snapshots module answers: snapshots, fork, rewind, restart, move, stale sessions,
// and session.create (an image, or a snapshot to start from).
import type { DevcontainerService } from '../devcontainer/devcontainer-service'
import { BerthError } from '../../../shared/errors'
import type { Handlers } from '../api'
import type { Core } from '../core'
import { progressOn } from '../progress'
import type { Secrets } from '../secrets/secrets-module'
import { fork } from './fork'
import { move } from './move'
import { testRestore } from './restore-check'
import { restart } from './restart'
import { rewind } from './rewind'
import { sessionFromSnapshot } from './session-from-snapshot'
import { limitsWithDefaults } from '../sessions/session-shape'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'

type SnapshotCalls = Pick<
  Handlers,
  | 'snapshot.create'
  | 'snapshot.list'
  | 'snapshot.show'
  | 'snapshot.remove'
  | 'snapshot.test'
  | 'session.fork'
  | 'session.rewind'
  | 'session.restart'
  | 'session.move'
  | 'session.stale'
  | 'session.create'
>

export function snapshotCalls(core: Core, service: SnapshotService, transfer: Transfer, secrets: Secrets, devcontainers: DevcontainerService): SnapshotCalls {
  return {
    'snapshot.create': (a) => {
      const row = core.sessions.resolve(a.id)
      return service.create(row.id, a.name, progressOn(core.bus, a.op, row.id, row.server))
    },
    'snapshot.list': (a) => service.list(a),
    'snapshot.show': (a) => service.show(a.id),
    'snapshot.remove': (a) => service.remove(a.id),
    'snapshot.test': (a) => testRestore(service, a.id, a.op),
    'session.fork': (a) => fork(service, a),
    'session.rewind': (a) => rewind(service, a),
    'session.restart': (a) => restart(service, a),
    'session.move': (a) => move(service, transfer, a),
    'session.stale': () => {
      const days = core.settings.get().staleAfterDays
      const cutoff = Date.now() - days * 86_400_000
      const sessions = core.sessionsRepo
        .inStates(['paused'])
        .filter((r) => Date.parse(r.updatedAt) < cutoff)
        .map((r) => core.sessions.toModel(r))
      return { days, sessions }
    },
    'session.create': async (a) => {
      if (a.secrets?.length) secrets.assertKnown(a.secrets)
      if (a.from) {
        if (a.workspace) throw new BerthError('usage', 'a session from a snapshot takes its workspace from the snapshot: drop --workspace')
        const snapshot = service.resolve(a.from)
        const made = await sessionFromSnapshot(service, {
          snapshot,
          server: a.server,
          name: a.name,
          env: a.env,
          secrets: a.secrets,
          limits: a.limits,
          verb: 'create',
          op: a.op,
        })
        return made.session
      }
      if (a.devcontainer) {
        const { devcontainer: dir, ...rest } = a
        return await devcontainers.create({ ...rest, dir }, (given) => limitsWithDefaults(core.settings.get(), given))
      }
      if (!a.image) throw new BerthError('usage', 'give an image or a snapshot to start from')
      return await core.sessions.create({ ...a, image: a.image, limits: limitsWithDefaults(core.settings.get(), a.limits) })
    },
  }
}
