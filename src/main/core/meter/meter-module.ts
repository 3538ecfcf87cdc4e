// Plugs the meter into the core: sampling while sessions run, `meter` in session show, and
// per-server hourly rates (server.setRate, `berth server rate NAME RATE`).
import { meterSummaryOf } from '../../../shared/models'
import type { Core } from '../core'
import { MeterRepo } from '../store/meter-repo'
import { MeterService } from './meter-service'

export function installMeter(core: Core): MeterService {
  const meter = new MeterService({
    repo: new MeterRepo(core.db),
    sessions: core.sessionsRepo,
    servers: core.servers,
    engines: core.engines,
    bus: core.bus,
    settings: () => core.settings.get(),
    homeId: core.homeId,
  })
  core.sessions.decorate((rows) => {
    const meterOf = meter.metersOf(rows)
    return (row, model) => void (model.meter = meterOf(row))
  })
  core.sessions.decorateSummaries((rows) => {
    const meterOf = meter.metersOf(rows)
    return (row, summary) => void (summary.meter = meterSummaryOf(meterOf(row)))
  })
  core.use(
    { start: () => meter.start(), stop: () => meter.stop() },
    {
      'server.setRate': (a) => {
        core.engines.row(a.name)
        meter.rateChanging(a.name)
        core.servers.update(a.name, { ratePerHour: a.ratePerHour })
        const model = core.serverService.toModel(core.engines.row(a.name))
        core.bus.emit('server.changed', model)
        return model
      },
    },
  )
  return meter
}
