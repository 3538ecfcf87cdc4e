// The lid-close path. 'suspend': pause the sessions the sleep policy covers, durably, holding a
// logind delay inhibitor while the pauses run. 'resume': reconcile pauses the sleep interrupted,
// then resume what the policy paused (sessions a person paused, or that idled, stay paused).
// The Electron shell forwards powerMonitor's events here; `berth power suspend|resume` (the sleep
// hooks) and `berth power simulate suspend|resume` call exactly the same code.
import type { PowerEvent, PowerEventResult } from '../../../shared/contract'
import { toErrorBody } from '../../../shared/errors'
import type { Settings } from '../../../shared/settings'
import type { PauseApi } from '../pause/pause-service'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { SleepInhibitor } from './sleep-inhibitor'

export interface PowerServiceDeps {
  sessions: SessionsRepo
  settings: () => Settings
  pause: PauseApi & { reconcileAll(): Promise<number> }
  inhibitor: SleepInhibitor
  /** the Electron host hears the OS's PrepareForSleep, so it holds the inhibitor in advance */
  holdInAdvance: boolean
  note: (kind: string, detail: Record<string, unknown>) => void
}

export class PowerService {
  private running: Promise<PowerEventResult> | undefined

  constructor(private readonly d: PowerServiceDeps) {}

  async start(): Promise<void> {
    if (this.d.holdInAdvance && this.d.settings().onSleep !== 'nothing') await this.d.inhibitor.take()
  }

  stop(): void {
    this.d.inhibitor.release()
  }

  /** One event at a time: a resume that arrives during a suspend waits for it. */
  async handle(event: PowerEvent): Promise<PowerEventResult> {
    const prev = this.running
    const next = (async () => {
      await prev?.catch(() => undefined)
      return event === 'suspend' ? await this.suspend() : await this.wake()
    })()
    this.running = next
    try {
      return await next
    } finally {
      if (this.running === next) this.running = undefined
    }
  }

  covered(row: SessionRow, policy: Settings['onSleep']): boolean {
    if (policy === 'nothing') return false
    return policy === 'all' || row.autoPause
  }

  private async suspend(): Promise<PowerEventResult> {
    const t0 = performance.now()
    const policy = this.d.settings().onSleep
    const inhibitor = await this.d.inhibitor.take()
    this.d.note('power-suspend', { policy, inhibitor })
    try {
      const r = await this.d.pause.pauseAll({ wait: true, by: 'policy', reason: 'the machine is going to sleep', filter: (row) => this.covered(row, policy) })
      return {
        event: 'suspend',
        policy,
        paused: r.results.map((x) => ({ id: x.id, name: x.name, result: x.result, error: x.error })),
        resumed: [],
        reconciled: 0,
        inhibitor,
        ms: Math.round(performance.now() - t0),
      }
    } finally {
      // the pauses are durable (or failed): let the machine sleep
      this.d.inhibitor.release()
    }
  }

  private async wake(): Promise<PowerEventResult> {
    const t0 = performance.now()
    const { onSleep: policy, resumeOnWake } = this.d.settings()
    this.d.note('power-resume', { policy, resumeOnWake })
    const reconciled = await this.d.pause.reconcileAll().catch(() => 0)
    const resumed: PowerEventResult['resumed'] = []
    if (resumeOnWake) {
      const rows = this.d.sessions.inStates(['paused']).filter((r) => r.pausedBy === 'policy')
      // the session the user looks at first, the others once it runs
      const results = await this.d.pause.resumeMany(
        rows.map((r) => r.id),
        { cause: 'wake' },
      )
      for (const r of rows) {
        const x = results.get(r.id)!
        resumed.push(x.status === 'fulfilled' ? { id: r.id, name: r.name, result: x.value } : { id: r.id, name: r.name, error: toErrorBody(x.reason) })
      }
    }
    const inhibitor = this.d.holdInAdvance && policy !== 'nothing' ? await this.d.inhibitor.take() : this.d.inhibitor.state
    return { event: 'resume', policy, paused: [], resumed, reconciled, inhibitor, ms: Math.round(performance.now() - t0) }
  }
}
