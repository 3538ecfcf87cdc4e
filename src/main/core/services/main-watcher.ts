// Watches the image's own main process of each running session that has one: every few seconds
// (and before a `session show`) it reads the supervisor's status file through the Docker API
// (nothing runs in the session), and when the process stopped by itself it notes the stop in the
// session's events (exit code, the kernel's out-of-memory kill, last lines of output) and keeps
// the last one for `session show`.
import type Dockerode from 'dockerode'
import type { MainProcess } from '../../../shared/models'
import { within } from '../deadline'
import type { EngineRegistry } from '../engines/engine-registry'
import { readContainerFile } from '../secrets/container-user'
import type { Lifecycle } from '../sessions/lifecycle'
import { shapeOf } from '../sessions/session-shape'
import { nowIso } from '../store/database'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import { exitSentence, lastLines, parseMainStatus } from './main-report'

const STATUS_FILE = '/tmp/.berth-main'
const EVERY_MS = 5_000
const READ_MS = 5_000

/** What Berth kept of the main process's stops (in the session's options, as mainReport). */
export interface MainReport {
  /** the newest stop already reported, by the session's clock */
  seenAt: number
  exits: number
  stopped: boolean
  lastExit: MainProcess['lastExit']
}

export function reportOf(options: Record<string, unknown>): MainReport {
  const r = options.mainReport as Partial<MainReport> | undefined
  return {
    seenAt: typeof r?.seenAt === 'number' ? r.seenAt : 0,
    exits: typeof r?.exits === 'number' ? r.exits : 0,
    stopped: r?.stopped === true,
    lastExit: r?.lastExit ?? null,
  }
}

export interface MainWatcherDeps {
  sessions: SessionsRepo
  engines: EngineRegistry
  lifecycle: Lifecycle
  changed: (row: SessionRow) => void
}

export class MainWatcher {
  private timer: NodeJS.Timeout | undefined
  private stopped = false
  private readonly busy = new Set<string>()

  constructor(private readonly d: MainWatcherDeps) {}

  start(): void {
    const loop = () => {
      if (this.stopped) return
      this.timer = setTimeout(() => void this.tick().finally(loop), EVERY_MS)
      this.timer.unref()
    }
    loop()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
  }

  async tick(): Promise<void> {
    const rows = this.d.sessions.inStates(['running']).filter((r) => shapeOf(r.options).main)
    await Promise.allSettled(rows.map((r) => this.refresh(r)))
  }

  /** Reads one session's status file and reports what is new; never throws. */
  async refresh(row: SessionRow): Promise<void> {
    const main = shapeOf(row.options).main
    if (!main || row.state !== 'running' || !row.containerId || this.busy.has(row.id)) return
    const engine = this.d.engines.get(row.server)
    if (engine.kind === 'ssh' && !engine.isConnected()) return // never wake a connection just to watch
    this.busy.add(row.id)
    try {
      const container = engine.docker.getContainer(row.containerId)
      const text = await readContainerFile(container, STATUS_FILE, READ_MS)
      if (text === undefined) return
      const status = parseMainStatus(text)
      const kept = reportOf(row.options)
      const fresh = status.exits.filter((e) => e.at > kept.seenAt)
      if (!fresh.length && status.stopped === kept.stopped) return
      const current = this.d.sessions.get(row.id)
      if (current?.state !== 'running' || current.containerId !== row.containerId) return
      const report: MainReport = { ...kept, stopped: status.stopped }
      if (fresh.length) {
        const lines = await outputTail(container)
        fresh.forEach((e) => {
          const i = status.exits.indexOf(e)
          const before = i > 0 ? status.exits[i - 1]!.oomKills : 0
          const last = i === status.exits.length - 1
          const sentence = exitSentence({
            command: main.argv,
            code: e.code,
            outOfMemory: e.oomKills > before,
            memoryLimit: shapeOf(row.options).limits.memoryBytes,
            restart: main.restart,
            restarted: !last || !status.stopped,
          })
          const at = new Date(e.at * 1000).toISOString()
          this.d.lifecycle.note(row.id, 'main-exited', { code: e.code, sentence, lines: last ? lines : [], at })
          report.lastExit = { code: e.code, at, sentence, lines: last ? lines : [] }
        })
        report.exits += fresh.length
        report.seenAt = fresh[fresh.length - 1]!.at
      }
      this.d.sessions.patch(row.id, { options: { ...current.options, mainReport: report } }, nowIso())
      this.d.changed(this.d.sessions.get(row.id)!)
    } catch {
      // the next round tries again
    } finally {
      this.busy.delete(row.id)
    }
  }
}

/** The last lines the session's main process printed (Docker keeps PID 1's output). */
async function outputTail(container: Dockerode.Container): Promise<string[]> {
  const read = container.logs({ stdout: true, stderr: true, tail: 5, follow: false }) as Promise<unknown>
  const raw = await within(read, READ_MS, () => undefined).catch(() => undefined)
  if (!Buffer.isBuffer(raw)) return []
  return lastLines(demux(raw).toString('utf8'))
}

/** Docker's multiplexed log frames (8-byte headers) to plain bytes; anything else as it is. */
function demux(buf: Buffer): Buffer {
  const out: Buffer[] = []
  let at = 0
  while (at + 8 <= buf.length) {
    const kind = buf[at]!
    if (kind > 2 || buf[at + 1] !== 0 || buf[at + 2] !== 0 || buf[at + 3] !== 0) return buf
    const size = buf.readUInt32BE(at + 4)
    out.push(buf.subarray(at + 8, at + 8 + size))
    at += 8 + size
  }
  return Buffer.concat(out)
}
