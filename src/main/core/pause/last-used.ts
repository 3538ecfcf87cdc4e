// When a person last used each session (terminal input, ssh traffic, a command), heard on the bus:
// the lid-close plan writes the memory of the session the user looks at first.
import type { CoreBus } from '../bus'

export class LastUsed {
  private readonly at = new Map<string, number>()
  private readonly off: () => void

  constructor(bus: CoreBus) {
    this.off = bus.on('activity', (a) => this.at.set(a.sessionId, Date.now()))
  }

  of(sessionId: string): number | null {
    return this.at.get(sessionId) ?? null
  }

  stop(): void {
    this.off()
  }
}
