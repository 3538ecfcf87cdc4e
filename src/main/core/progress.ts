// Progress of long work, reported as contract events (the CLI prints them, the UI draws a bar).
import { randomBytes } from 'node:crypto'
import type { Progress } from '../../shared/models'
import type { CoreBus } from './bus'

export type ProgressSink = (p: Progress) => void

export class ProgressReporter {
  private started = Date.now()
  private lastEmit = 0
  readonly op: string

  constructor(
    private readonly sink: ProgressSink,
    private readonly base: { op?: string | undefined; sessionId: string | null; server: string | null },
  ) {
    this.op = base.op ?? randomBytes(6).toString('hex')
  }

  stage(stage: string, message: string, total: number | null = null): void {
    this.started = Date.now()
    this.emit({ stage, message, bytes: 0, total, done: false }, true)
  }

  /** Bytes done of a total; `force` for a figure that must not be dropped (the end of a stage), else at most 5 a second. */
  bytes(stage: string, message: string, bytes: number, total: number | null, force = false): void {
    this.emit({ stage, message, bytes, total, done: false }, force)
  }

  done(stage: string, message: string, bytes = 0): void {
    this.emit({ stage, message, bytes, total: bytes || null, done: true }, true)
  }

  private emit(p: Omit<Progress, 'op' | 'sessionId' | 'server' | 'rate'>, force: boolean): void {
    const now = Date.now()
    if (!force && now - this.lastEmit < 200) return
    this.lastEmit = now
    const secs = (now - this.started) / 1000
    this.sink({ ...p, op: this.op, sessionId: this.base.sessionId, server: this.base.server, rate: secs > 0 && p.bytes ? p.bytes / secs : null })
  }
}

/** The one way long work gets its reporter: contract events on the core's bus, tagged with the session and its server. */
export function progressOn(bus: CoreBus, op: string | undefined, sessionId: string | null, server: string | null): ProgressReporter {
  return new ProgressReporter((p) => bus.emit('progress', p), { op, sessionId, server })
}
