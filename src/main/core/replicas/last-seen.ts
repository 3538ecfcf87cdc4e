// When each server last answered: a fail-over says how much older than that its replica is.
import { nowIso } from '../store/database'

export class LastSeen {
  private readonly at = new Map<string, string>()

  saw(server: string): void {
    this.at.set(server, nowIso())
  }

  last(server: string): string | undefined {
    return this.at.get(server)
  }
}
