// Plugs snapshots, seals, fork, rewind, restart and sessions made from snapshots into the core.
import { limitsWithDefaults } from '../sessions/session-shape'
import { BerthError } from '../../../shared/errors'
import { SessionOrigin } from '../../../shared/models'
import type { Core } from '../core'
import { ProgressReporter } from '../progress'
import type { Secrets } from '../secrets/secrets-module'
import { SnapshotsRepo } from '../store/snapshots-repo'
import type { PauseService } from '../pause/pause-service'
import { fork } from './fork'
import { MemoryParts } from './memory'
import { move, recoverMove, sweepLeftovers } from './move'
import { testRestore } from './restore-check'
import { Transfer } from './transfer'
import { completeRestart, recreateLost, restart } from './restart'
import { rewind } from './rewind'
import { Sealer } from './sealer'
import { removeImageTag } from './server-steps'
import { sessionFromSnapshot } from './session-from-snapshot'
import { sessionImage } from '../engines/docker-names'
import { SnapshotService } from './snapshot-service'

export interface SnapshotsModule {
  service: SnapshotService
  sealer: Sealer
}

export function installSnapshots(core: Core, secrets: Secrets, pause: PauseService): SnapshotsModule {
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

  // a paused session whose container is gone comes back from the newest disk Berth kept (a restart)
  core.sessions.recreateLostWith((id, op) => recreateLost(service, id, op))
  // every durable pause leaves a checkpoint: listed while the pause lasts
  core.bus.on('pause.durable', ({ session, pause: p }) => {
    try {
      service.recordPause(session, p)
    } catch (e) {
      core.lifecycle.note(session.id, 'snapshot-record-failed', { reason: (e as Error).message })
    }
  })
  const progressFor = (op: string | undefined, sessionId: string | null, server: string | null) =>
    new ProgressReporter((p) => core.bus.emit('progress', p), { op, sessionId, server })

  // where a session came from (create --from, fork, rewind), shown with the session
  core.sessions.decorate(() => (row, model) => {
    if (row.options.origin === undefined) return
    const o = SessionOrigin.safeParse(row.options.origin)
    if (o.success) model.origin = o.data
  })

  core.recovery.register('restarting', async (row) => void (await completeRestart(service, row).catch(() => undefined)))
  core.recovery.register('moving', async (row) => {
    const last = core.eventsRepo.last(row.id, 'transition')
    const to = typeof last?.detail.to === 'string' ? last.detail.to : null
    await recoverMove(service, row, to)
  })

  // A finished session lets go of what it pinned, and of its own image tag (its snapshots stay).
  core.bus.onContract((name, payload) => {
    if (name !== 'session.changed') return
    const s = payload as { id: string; state: string; server: string }
    // a pause's checkpoint is listed while the session is paused (or on its way somewhere)
    if (s.state !== 'paused' && s.state !== 'moving') service.dropPauseRecords(s.id)
    if (s.state !== 'finished') return
    service.ctx.repo.unpinBy(s.id)
    const engine = core.engines.peek(s.server)
    if (engine) void removeImageTag(engine, sessionImage(core.homeId, s.id)).catch(() => undefined)
  })

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
      'snapshot.create': (a) => {
        const row = core.sessions.resolve(a.id)
        return service.create(row.id, a.name, progressFor(a.op, row.id, row.server))
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
        if (!a.image) throw new BerthError('usage', 'give an image or a snapshot to start from')
        return await core.sessions.create({ ...a, image: a.image, limits: limitsWithDefaults(core.settings.get(), a.limits) })
      },
    },
  )
  return { service, sealer }
}
