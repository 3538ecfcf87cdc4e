// The image's own services and the session's limits (issue 21): the main process's reports in
// `session show` and the events, limits beside the meter, and `session.set` to change them.
import { BerthError, reasonOf } from '../../../shared/errors'
import type { Limits } from '../../../shared/models'
import type { Core } from '../core'
import { limitsConfig, shapeOf } from '../sessions/session-shape'
import { nowIso } from '../store/database'
import { MainWatcher, reportOf } from './main-watcher'

export function installServices(core: Core): MainWatcher {
  const watcher = new MainWatcher({
    sessions: core.sessionsRepo,
    engines: core.engines,
    lifecycle: core.lifecycle,
    changed: (row) => core.bus.emit('session.changed', core.sessions.toModel(row)),
  })
  core.sessions.beforeShow.push((row) => watcher.refresh(row))
  // after the meter's decorator: the limits go beside its use
  core.sessions.decorate(() => (row, model) => {
    const shape = shapeOf(row.options)
    model.limits = shape.limits
    if (model.meter) model.meter = { ...model.meter, cpuLimit: shape.limits.cpus ?? null, memoryLimitBytes: shape.limits.memoryBytes ?? null }
    if (!shape.main) {
      model.main = null
      return
    }
    const r = reportOf(row.options)
    model.main = { command: shape.main.argv, restart: shape.main.restart, state: r.stopped ? 'stopped' : 'running', exits: r.exits, lastExit: r.lastExit }
  })
  core.use(
    { start: () => watcher.start(), stop: () => watcher.stop() },
    {
      'session.set': async (a) => {
        const row = core.sessions.resolve(a.id)
        if (row.state === 'finished') throw new BerthError('refused', `session ${row.name} finished`)
        const limits: Limits = { ...shapeOf(row.options).limits, ...a.limits }
        // the container changes at once (docker update, running or stopped); one made later (resume
        // from disk, a move, a fork) is made with them
        if (row.containerId && (row.state === 'running' || row.state === 'paused')) {
          const engine = core.engines.get(row.server)
          try {
            await engine.ready()
            await engine.docker.getContainer(row.containerId).update(limitsConfig(limits))
          } catch (e) {
            if (row.state === 'running') throw new BerthError('refused', `the engine on ${row.server} would not change the limits of ${row.name}: ${reasonOf(e)}`)
          }
        }
        const current = core.sessions.resolve(row.id)
        core.sessionsRepo.patch(row.id, { options: { ...current.options, limits } }, nowIso())
        core.lifecycle.note(row.id, 'limits', { limits })
        const model = core.sessions.toModel(core.sessions.resolve(row.id))
        core.bus.emit('session.changed', model)
        return model
      },
    },
  )
  return watcher
}
