// Tells the rest of the core (idle auto-pause) that a session is in use through its route, without
// flooding the bus: at most one 'activity' signal per session per interval, however much traffic.
import type { CoreBus } from '../bus'

export class ActivityTap {
  private readonly last = new Map<string, number>()

  constructor(
    private readonly bus: CoreBus,
    private readonly intervalMs = 1000,
  ) {}

  /** ssh traffic (or a preview request) in this session. */
  touch(sessionId: string, signal = 'ssh'): void {
    const now = Date.now()
    const prev = this.last.get(sessionId) ?? 0
    if (now - prev < this.intervalMs) return
    this.last.set(sessionId, now)
    this.bus.signal('activity', { sessionId, signal })
  }

  /** A command started (+1) or ended (-1) through the gateway: a session running one is not idle. */
  foreground(sessionId: string, delta: 1 | -1): void {
    this.bus.signal('foreground', { sessionId, delta })
    this.last.set(sessionId, 0)
    this.touch(sessionId)
  }

  forget(sessionId: string): void {
    this.last.delete(sessionId)
  }
}
