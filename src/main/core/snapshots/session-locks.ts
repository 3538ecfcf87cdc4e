// One piece of snapshot work at a time per session (a seal, a named snapshot, a fork's capture, a
// rewind, a restart, a move): they all read or replace the same container and volume.
export class SessionLocks {
  private readonly tails = new Map<string, Promise<unknown>>()

  run<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(sessionId) ?? Promise.resolve()
    const next = prev.catch(() => undefined).then(work)
    this.tails.set(sessionId, next)
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.tails.get(sessionId) === next) this.tails.delete(sessionId)
      })
    return next
  }

  busy(sessionId: string): boolean {
    return this.tails.has(sessionId)
  }
}
