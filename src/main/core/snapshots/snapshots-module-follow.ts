// How snapshots follow the sessions: a lost container comes back from the newest disk kept, a
// durable pause is listed as a checkpoint, a session shows where it came from, a restart or move
// that Berth's stop interrupted is finished, and a finished session lets go of what it pinned.
import { SessionOrigin } from '../../../shared/models'
import type { Core } from '../core'
import { sessionImage } from '../engines/docker-names'
import { recoverMove } from './move'
import { completeRestart, recreateLost } from './restart'
import { removeImageTag } from './server-steps'
import type { SnapshotService } from './snapshot-service'

export function followSessions(core: Core, service: SnapshotService): void {
  // a paused session whose container is gone comes back from the newest disk Berth kept (a restart)
  core.sessions.recreateLostWith((id, op) => recreateLost(service, id, op))
  // every durable pause leaves a checkpoint, listed under the name its pause reserved and said in its events
  service.ctx.memory.pause.nameCheckpointsWith((row) => service.pauseName(row))
  core.bus.on('pause.durable', ({ session, pause: p }) => {
    try {
      service.recordPause(session, p)
    } catch (e) {
      core.lifecycle.note(session.id, 'snapshot-record-failed', { reason: (e as Error).message })
    }
  })

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
    // a pause's checkpoint is the session's to resume from while it is paused (or on its way somewhere)
    if (s.state === 'running') service.spendPauseRecords(s.id, 'the session resumed from it')
    else if (!['paused', 'moving', 'resuming', 'pausing'].includes(s.state)) service.spendPauseRecords(s.id, `the session is ${s.state} since`)
    if (s.state !== 'finished') return
    service.ctx.repo.unpinBy(s.id)
    const engine = core.engines.peek(s.server)
    if (engine) void removeImageTag(engine, sessionImage(core.homeId, s.id)).catch(() => undefined)
  })
}
