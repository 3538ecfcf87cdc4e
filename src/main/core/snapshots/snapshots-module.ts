// Plugs snapshots, seals, fork, rewind, restart and sessions made from snapshots into the core.
import { BerthError } from '../../../shared/errors'
import { SessionOrigin } from '../../../shared/models'
import type { Core } from '../core'
import { ProgressReporter } from '../progress'
import type { Secrets } from '../secrets/secrets-module'
import { SnapshotsRepo } from '../store/snapshots-repo'
import { fork } from './fork'
import { completeRestart, restart } from './restart'
import { rewind } from './rewind'
import { Sealer } from './sealer'
import { removeImageTag } from './server-steps'
import { sessionFromSnapshot } from './session-from-snapshot'
import { sessionImage } from './snapshot-names'
import { SnapshotService } from './snapshot-service'

export interface SnapshotsModule {
  service: SnapshotService
  sealer: Sealer
}

export function installSnapshots(core: Core, secrets: Secrets): SnapshotsModule {
  const service = new SnapshotService({
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
  const progressFor = (op: string | undefined, sessionId: string | null, server: string | null) =>
    new ProgressReporter((p) => core.bus.emit('progress', p), { op, sessionId, server })

  // where a session came from (create --from, fork, rewind), shown with the session
  core.sessions.decorate((row, model) => {
    const o = SessionOrigin.safeParse(row.options.origin)
    return o.success ? { ...model, origin: o.data } : model
  })

  core.recovery.register('restarting', async (row) => void (await completeRestart(service, row).catch(() => undefined)))

  // A finished session lets go of what it pinned, and of its own image tag (its snapshots stay).
  core.bus.onContract((name, payload) => {
    if (name !== 'session.changed') return
    const s = payload as { id: string; state: string; server: string }
    if (s.state !== 'finished') return
    service.ctx.repo.unpinBy(s.id)
    const engine = core.engines.peek(s.server)
    if (engine) void removeImageTag(engine, sessionImage(core.homeId, s.id)).catch(() => undefined)
  })

  core.use(
    {
      start: async () => {
        await service.reconcile()
        sealer.start()
      },
      stop: () => sealer.stop(),
    },
    {
      'snapshot.create': (a) => {
        const row = core.sessions.resolve(a.id)
        return service.create(row.id, a.name, progressFor(a.op, row.id, row.server))
      },
      'snapshot.list': (a) => service.list(a),
      'snapshot.show': (a) => service.show(a.id),
      'snapshot.remove': (a) => service.remove(a.id),
      'snapshot.test': () => {
        throw new BerthError('internal', 'snapshot test is not wired yet')
      },
      'session.fork': (a) => fork(service, a),
      'session.rewind': (a) => rewind(service, a),
      'session.restart': (a) => restart(service, a),
      'session.move': () => {
        throw new BerthError('internal', 'session move is not wired yet')
      },
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
            verb: 'create',
            op: a.op,
          })
          return made.session
        }
        if (!a.image) throw new BerthError('usage', 'give an image or a snapshot to start from')
        return await core.sessions.create({ ...a, image: a.image })
      },
    },
  )
  return { service, sealer }
}
