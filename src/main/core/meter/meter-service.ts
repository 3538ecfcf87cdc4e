// The meter: while a session runs, its cpu, memory and disk are sampled every few seconds (Docker's
// stats) into the store, and its running time and cost estimate grow at its server's hourly rate.
// While it is paused nothing is sampled and nothing grows: the running interval closes at the
// transition itself, not at the next sample.
import type Dockerode from 'dockerode'
import { meterSummaryOf, type Meter } from '../../../shared/models'
import type { Settings } from '../../../shared/settings'
import type { CoreBus } from '../bus'
import type { EngineRegistry } from '../engines/engine-registry'
import { LABEL_HOME } from '../engines/docker-names'
import { nowIso } from '../store/database'
import { emptyTotals, type MeterRepo, type MeterTotals } from '../store/meter-repo'
import type { ServersRepo } from '../store/servers-repo'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'

export interface MeterServiceDeps {
  repo: MeterRepo
  sessions: SessionsRepo
  servers: ServersRepo
  engines: EngineRegistry
  bus: CoreBus
  settings: () => Settings
  homeId: string
}

/** What a meter needs of a session: a listing's summary row will do. */
type MeteredRow = Pick<SessionRow, 'id' | 'server' | 'state'>

interface StatsSample {
  cpuRaw: number
  memory: number
}

/** Disk (the writable layer's size) costs Docker a walk of the layer: sampled less often. */
const DISK_EVERY = 6

export class MeterService {
  private timer: NodeJS.Timeout | undefined
  private unsubscribe: (() => void) | undefined
  private ticks = 0
  private stopped = false

  constructor(private readonly d: MeterServiceDeps) {}

  start(): void {
    this.unsubscribe = this.d.bus.onContract((name, payload) => {
      if (name !== 'session.changed') return
      const s = payload as { id: string; state: string; server: string }
      this.onState(s.id, s.state, s.server)
    })
    // transitions made while the meter was not listening (Berth stopped, recovery at start-up)
    for (const t of this.d.repo.all()) {
      const row = this.d.sessions.get(t.sessionId)
      if (t.runningSince && row?.state !== 'running') this.close(t, row?.server ?? null, row?.updatedAt ?? nowIso())
    }
    for (const row of this.d.sessions.inStates(['running'])) this.onState(row.id, 'running', row.server)
    const loop = () => {
      if (this.stopped) return
      this.timer = setTimeout(() => void this.tick().finally(loop), this.d.settings().meterSampleSeconds * 1000)
      this.timer.unref()
    }
    loop()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.unsubscribe?.()
  }

  private rate(server: string | null): number {
    return server ? (this.d.servers.get(server)?.ratePerHour ?? 0) : 0
  }

  /** Opens or closes the session's running interval as its state changes. */
  onState(sessionId: string, state: string, server: string): void {
    const t = this.d.repo.get(sessionId) ?? emptyTotals(sessionId)
    if (state === 'running') {
      if (!t.runningSince) {
        t.runningSince = nowIso()
        this.d.repo.put(t)
      }
    } else if (t.runningSince) {
      this.close(t, server, nowIso())
    }
  }

  /** A rate change applies from now on: running intervals on the server are closed at the old rate. */
  rateChanging(server: string): void {
    const at = nowIso()
    for (const row of this.d.sessions.inStates(['running']).filter((r) => r.server === server)) {
      const t = this.d.repo.get(row.id)
      if (!t?.runningSince) continue
      const { cpuPercent, memory } = t
      this.close(t, server, at)
      Object.assign(t, { runningSince: at, cpuPercent, memory })
      this.d.repo.put(t)
    }
  }

  private close(t: MeterTotals, server: string | null, at: string): void {
    const secs = Math.max(0, (Date.parse(at) - Date.parse(t.runningSince!)) / 1000)
    t.runningSeconds += secs
    t.cost += (secs / 3600) * this.rate(server)
    t.runningSince = null
    t.cpuPercent = 0
    t.memory = 0
    this.d.repo.put(t)
  }

  /** Samples every running session, each server in parallel; a slow server delays only its own. */
  async tick(): Promise<void> {
    const disk = this.ticks++ % DISK_EVERY === 0
    const byServer = new Map<string, SessionRow[]>()
    for (const row of this.d.sessions.inStates(['running'])) byServer.set(row.server, [...(byServer.get(row.server) ?? []), row])
    await Promise.allSettled([...byServer].map(([server, rows]) => this.sampleServer(server, rows, disk)))
    this.announce([...byServer.values()].flat())
  }

  /** Lists follow the meters of running sessions from this event, without asking. */
  private announce(sampled: SessionRow[]): void {
    const rows = sampled.filter((r) => this.d.sessions.get(r.id)?.state === 'running')
    if (!rows.length) return
    const meterOf = this.metersOf(rows)
    this.d.bus.emit('meter.sampled', { meters: rows.map((r) => ({ sessionId: r.id, meter: meterSummaryOf(meterOf(r)) })) })
  }

  private async sampleServer(server: string, rows: SessionRow[], withDisk: boolean): Promise<void> {
    const engine = this.d.engines.get(server)
    if (engine.kind === 'ssh' && !engine.isConnected()) return // never wake a connection just to meter
    const sizes = withDisk ? await this.diskSizes(engine.docker).catch(() => new Map<string, number>()) : new Map<string, number>()
    await Promise.allSettled(
      rows.map(async (row) => {
        if (!row.containerId) return
        const s = await withTimeout(readStats(engine.docker, row.containerId), 5000)
        // paused (or gone) while we asked: no sample
        if (this.d.sessions.get(row.id)?.state !== 'running') return
        this.record(row, s, sizes.get(row.containerId))
      }),
    )
  }

  private async diskSizes(docker: Dockerode): Promise<Map<string, number>> {
    const list = await docker.listContainers({ all: true, size: true, filters: { label: [`${LABEL_HOME}=${this.d.homeId}`] } })
    return new Map(list.map((c) => [c.Id, (c as { SizeRw?: number }).SizeRw ?? 0]))
  }

  private record(row: SessionRow, s: StatsSample, disk: number | undefined): void {
    const t = this.d.repo.get(row.id) ?? { ...emptyTotals(row.id), runningSince: nowIso() }
    const at = nowIso()
    // the container's counter restarts with every restore or cold boot: count only what it added
    const delta = t.cpuRaw !== null && s.cpuRaw >= t.cpuRaw ? s.cpuRaw - t.cpuRaw : s.cpuRaw
    const wall = t.sampledAt && t.runningSince && t.sampledAt >= t.runningSince ? (Date.parse(at) - Date.parse(t.sampledAt)) / 1000 : 0
    t.cpuSeconds += delta
    t.cpuPercent = wall > 0 ? Math.round((delta / wall) * 1000) / 10 : 0
    t.cpuRaw = s.cpuRaw
    t.memory = s.memory
    t.peakMemory = Math.max(t.peakMemory, s.memory)
    if (disk !== undefined) t.disk = disk
    t.samples++
    t.sampledAt = at
    this.d.repo.record(t, { at, cpuSeconds: t.cpuSeconds, memory: t.memory, disk: t.disk })
  }

  /** The meters of a listing's rows: their totals in one query, each server's rate once. */
  metersOf(rows: readonly MeteredRow[]): (row: MeteredRow) => Meter {
    const totals = this.d.repo.totalsOf(rows.map((r) => r.id))
    const rates = new Map<string, number>()
    return (row) => {
      let rate = rates.get(row.server)
      if (rate === undefined) rates.set(row.server, (rate = this.rate(row.server)))
      return this.meter(row, totals.get(row.id) ?? emptyTotals(row.id), rate)
    }
  }

  /** The meter as `session show` reports it: totals plus the running interval so far. */
  private meter(row: MeteredRow, t: MeterTotals, rate: number): Meter {
    const open = t.runningSince && row.state === 'running' ? Math.max(0, (Date.now() - Date.parse(t.runningSince)) / 1000) : 0
    return {
      cpuSeconds: round(t.cpuSeconds, 3),
      peakMemoryBytes: t.peakMemory,
      memoryBytes: row.state === 'running' ? t.memory : 0,
      diskBytes: t.disk,
      cpuPercent: row.state === 'running' ? t.cpuPercent : 0,
      runningSeconds: round(t.runningSeconds + open, 1),
      cost: round(t.cost + (open / 3600) * rate, 6),
      ratePerHour: rate,
      sampledAt: t.sampledAt,
    }
  }

  samples(sessionId: string): number {
    return this.d.repo.sampleCount(sessionId)
  }
}

const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits

async function readStats(docker: Dockerode, containerId: string): Promise<StatsSample> {
  // one-shot: Docker answers at once instead of waiting a second for a second reading
  const s = (await docker.getContainer(containerId).stats({ stream: false, 'one-shot': true } as { stream: false })) as unknown as {
    cpu_stats?: { cpu_usage?: { total_usage?: number } }
    memory_stats?: { usage?: number; stats?: Record<string, number> }
  }
  const cpuNs = s.cpu_stats?.cpu_usage?.total_usage ?? 0
  const usage = s.memory_stats?.usage ?? 0
  const stats = s.memory_stats?.stats ?? {}
  const inactive = stats.total_inactive_file ?? stats.inactive_file ?? 0
  return { cpuRaw: cpuNs / 1e9, memory: Math.max(0, usage - inactive) }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('timed out')), ms)
    p.then(
      (v) => {
        clearTimeout(t)
        resolve(v)
      },
      (e: unknown) => {
        clearTimeout(t)
        reject(e)
      },
    )
  })
}
