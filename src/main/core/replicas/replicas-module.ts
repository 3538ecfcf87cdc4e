// Plugs replicas into the core: a copy of each session on its replica target after every durable
// pause and seal, `session show`'s replica, the replica verbs, and `resume --on` that falls back to
// the replica when the session's server is gone.
import { BerthError } from '../../../shared/errors'
import type { Core } from '../core'
import { ProgressReporter } from '../progress'
import { ReplicasRepo } from '../store/replicas-repo'
import type { SnapshotsModule } from '../snapshots/snapshots-module'
import { Copies } from './copies'
import { resumeOn } from './failover'
import { LastSeen } from './last-seen'
import { answers, Replicator } from './replicator'

/** How often the watch looks for replicas to bring up to date and stale copies to keep stopped. */
const TICK_MS = 5000
/** A failed copy is tried again after this long (a cut transfer continues where it stopped). */
const RETRY_MS = 20_000

export function installReplicas(core: Core, snapshots: SnapshotsModule): void {
  const svc = snapshots.service
  const repo = new ReplicasRepo(core.db)
  const replicator = new Replicator(svc, snapshots.transfer, repo)
  const copies = new Copies(svc, repo, replicator)
  const seen = new LastSeen()
  const tried = new Map<string, number>()

  // the leftover sweep leaves the copies kept on purpose (replicas, and stale copies until clean-up)
  svc.keepCopies((sessionId, server) => repo.get(sessionId, server) !== undefined)

  const request = (id: string) => {
    tried.set(id, Date.now())
    replicator.request(id)
  }
  core.bus.on('pause.durable', ({ session }) => request(session.id))
  core.bus.on('session.sealed', ({ session }) => request(session.id))

  core.sessions.decorate(() => (row, model) => {
    model.replica = copies.state(row)
  })

  core.bus.onContract((name, payload) => {
    if (name !== 'session.changed') return
    const s = payload as { id: string; state: string; server: string; containerId: string | null }
    if (s.state === 'finished') {
      if (repo.list(s.id).length) void copies.dropAll(s.id)
      return
    }
    // a move onto the replica's server replaced the copy there with the session itself
    const there = repo.get(s.id, s.server)
    if (there && s.state !== 'moving') repo.remove(s.id, s.server)
  })

  let timer: NodeJS.Timeout | undefined
  let ticking = false
  const tick = async () => {
    if (ticking) return
    ticking = true
    try {
      const servers = new Set(repo.list().map((r) => r.server))
      for (const row of core.sessionsRepo.inStates(['running', 'paused'])) {
        if (!replicator.targetOf(row)) continue
        servers.add(row.server)
        if (replicator.current(row) || Date.now() - (tried.get(row.id) ?? 0) < RETRY_MS) continue
        request(row.id)
      }
      await Promise.all([...servers].map(async (s) => (await answers(core.engines.get(s)).catch(() => false)) && seen.saw(s)))
      await copies.keepStopped()
    } finally {
      ticking = false
    }
  }
  const schedule = () => {
    timer = setTimeout(() => void tick().catch(() => undefined).finally(schedule), TICK_MS)
    timer.unref()
  }

  core.use(
    {
      start: () => schedule(),
      stop: () => {
        if (timer) clearTimeout(timer)
        timer = undefined
      },
    },
    {
      'replica.list': (a) => {
        const id = a.session ? core.sessions.resolve(a.session).id : undefined
        return repo.list(id).map((r) => copies.info(r))
      },
      'replica.sync': async (a) => {
        const row = core.sessions.resolve(a.id)
        const to = replicator.targetOf(row)
        if (!to) throw new BerthError('refused', `session ${row.name} has no replica target: berth session set ${row.name} --replicate-to SERVER`)
        const progress = new ProgressReporter((p) => core.bus.emit('progress', p), { op: a.op, sessionId: row.id, server: to })
        tried.set(row.id, Date.now())
        const rep = await replicator.sync(row.id, progress)
        if (!rep) throw new BerthError('conflict', `session ${row.name} has nothing durable to copy yet: pause it, or wait for its first seal`)
        progress.done('replicate', `${row.name}'s replica on ${to} holds its ${rep.pauseSeq !== null ? 'pause' : 'seal'} of ${rep.at}`, rep.bytes)
        return copies.info(rep)
      },
      'replica.clean': async (a) => await copies.clean(a.id ? core.sessions.resolve(a.id).id : undefined),
      'replica.target': (a) => {
        const row = core.sessions.resolve(a.id)
        if (a.to !== 'default' && a.to !== 'none') core.engines.row(a.to)
        repo.setTarget(row.id, a.to === 'default' ? null : a.to)
        const model = core.sessions.toModel(core.sessionsRepo.get(row.id)!)
        core.bus.emit('session.changed', model)
        if (replicator.targetOf(row)) request(row.id)
        return model
      },
      'session.resumeOn': (a) => resumeOn({ svc, transfer: snapshots.transfer, repo, replicator, seen }, a),
    },
  )
}
