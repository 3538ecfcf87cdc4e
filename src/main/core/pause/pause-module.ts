// Plugs pause and resume into the core: the calls, the recovery of interrupted pauses and resumes,
// the reconciliation on the next contact with a server, and the hooks other verbs go through.
import type { Core } from '../core'
import { LIVE, sessionFinished } from '../sessions/lifecycle'
import { lidCloseDeadlineMs, sleepWindow } from '../settings/sleep-window'
import { MeterRepo } from '../store/meter-repo'
import { PausesRepo } from '../store/pauses-repo'
import { PauseService } from './pause-service'
import { PAUSE_DEADLINE_MS } from './pausing'
import { DUMPS_AT_ONCE } from './pause-planner'

export function installPause(core: Core): PauseService {
  const pauses = new PausesRepo(core.db)
  const checkpoints = core.checkpoints
  const service = new PauseService({
    sessionsRepo: core.sessionsRepo,
    sessions: core.sessions,
    lifecycle: core.lifecycle,
    engines: core.engines,
    hub: core.hub,
    bus: core.bus,
    pauses,
    checkpoints,
    meter: new MeterRepo(core.db),
    lidCloseDeadlineMs: async () => lidCloseDeadlineMs(core.settings.get().pauseDeadlineSeconds, await sleepWindow()),
    dumpsAtOnce: () => core.settings.get().dumpsAtOnce ?? DUMPS_AT_ONCE,
    pauseDeadlineMs: () => (core.settings.get().pauseDeadlineSeconds ?? PAUSE_DEADLINE_MS / 1000) * 1000,
    lazyResume: () => ({ on: core.settings.get().lazyResume, deadlineSeconds: core.settings.get().lazyResumeDeadlineSeconds }),
  })

  core.recovery.register('pausing', (row) => service.reconcile(row))
  core.recovery.register('resuming', (row) => service.reconcile(row))

  // An auto-paused session (idle, sleep policy) resumes when someone attaches to it.
  core.sessions.beforeAttach.push(async (row) => {
    if (row.state === 'paused' || row.state === 'pausing') await service.resumeIfAutoPaused(row.id, 'attach')
  })
  // A finished session's container took its checkpoints with it; committed images remain.
  core.sessions.afterFinish.push(async (row) => {
    for (const p of pauses.withArtefacts(row.id)) await service.removeArtefacts(p, true)
  })

  let unsubscribe: (() => void) | undefined
  let timer: NodeJS.Timeout | undefined
  core.use(
    {
      start() {
        // what the laptop's engine can do is known before the lid first closes (a test that still
        // holds is not run again)
        void checkpoints.ability('local').catch(() => undefined)
        // and, failing any contact, a try every minute while something is left mid-way; this one also
        // writes the memory of sessions a lid-close pause left frozen
        timer = setInterval(() => void service.reconcileAll({ complete: true }).catch(() => undefined), 60_000)
        timer.unref()
        // the next contact with a server reconciles what a dropped connection left mid-way, and tests
        // the server again (a reconnect may be a restarted machine)
        // (any news of a connected server is a contact, `server test` included; at most one pass per
        // server every few seconds)
        const seen = new Map<string, string>()
        const lastPass = new Map<string, number>()
        unsubscribe = core.bus.onContract((name, payload) => {
          if (name !== 'server.changed') return
          const s = payload as { name: string; state: string }
          const was = seen.get(s.name)
          seen.set(s.name, s.state)
          if (s.state !== 'connected') return
          if (was !== undefined && was !== 'connected') void checkpoints.ability(s.name, { fresh: true }).catch(() => undefined)
          if (Date.now() - (lastPass.get(s.name) ?? 0) < 5000) return
          lastPass.set(s.name, Date.now())
          void service.reconcileServer(s.name, { complete: true }).catch(() => undefined)
        })
        // pauses that were not durable yet when Berth stopped, then the lazy restores it left
        // unfollowed (their checkpoints go only once all memory is back)
        void service
          .reconcileAll()
          .catch(() => undefined)
          .then(() => service.followLazyLeft())
      },
      stop() {
        if (timer) clearInterval(timer)
        unsubscribe?.()
        service.close()
      },
    },
    {
      'session.pause': (a) => service.pause(a.id, { wait: a.wait, memory: a.memory, by: 'user', op: a.op, deadlineMs: a.deadlineSeconds ? a.deadlineSeconds * 1000 : undefined }),
      'session.pauseAll': (a) =>
        service.pauseAll({ wait: a.wait, memory: a.memory, by: 'user', op: a.op, deadlineMs: a.deadlineSeconds ? a.deadlineSeconds * 1000 : undefined, overflow: 'frozen' }),
      'session.resume': (a) => service.resume(a.id, { cause: 'user', op: a.op }),
      'session.configure': (a) => {
        const row = core.sessions.resolve(a.id)
        if (row.state === 'finished') throw sessionFinished(row, 'configure')
        const patch: { idleAfterSeconds?: number | null; autoPause?: boolean } = {}
        if (a.idleAfterSeconds !== undefined) patch.idleAfterSeconds = a.idleAfterSeconds
        if (a.autoPause !== undefined) patch.autoPause = a.autoPause
        const next = core.lifecycle.amend(row.id, { in: [...LIVE, 'failed'], patch, kind: 'configured', detail: patch })
        // a new idle time counts from now
        if (a.idleAfterSeconds !== undefined) core.bus.signal('activity', { sessionId: row.id, signal: 'a new idle time' })
        return core.sessions.toModel(next ?? core.sessions.resolve(row.id))
      },
      'session.events': (a) => core.eventsRepo.forSession(core.sessions.resolve(a.id).id, a.limit ?? 200),
      'server.setCheckpoint': (a) => {
        const row = core.engines.row(a.name)
        const options = { ...row.options }
        if (a.checkpoint === 'auto') delete options.checkpoint
        else options.checkpoint = a.checkpoint === 'off' ? false : a.checkpoint
        core.servers.update(a.name, { options })
        checkpoints.invalidate(a.name)
        const model = core.serverService.toModel(core.engines.row(a.name))
        core.bus.emit('server.changed', model)
        return model
      },
    },
  )
  return service
}
