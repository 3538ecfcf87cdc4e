// What a session is going through in this process (a pause, a resume, a reconciliation, or a hold:
// work of another domain that must not meet a pause, a named snapshot's commit for one), so a
// second caller waits for the first instead of starting a second transition.
import type { PauseResult } from '../../../shared/contract'

export interface Deferred<T> {
  promise: Promise<T>
  resolve(v: T): void
  reject(e: unknown): void
  settled: boolean
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const d: Deferred<T> = {
    promise: new Promise<T>((res, rej) => {
      resolve = res
      reject = rej
    }),
    resolve: (v) => {
      if (d.settled) return
      d.settled = true
      resolve(v)
    },
    reject: (e) => {
      if (d.settled) return
      d.settled = true
      reject(e)
    },
    settled: false,
  }
  d.promise.catch(() => undefined)
  return d
}

export interface Work {
  kind: 'pause' | 'resume' | 'reconcile' | 'hold'
  /** a pause: the sandbox stopped (the answer without --wait) */
  stopped: Deferred<PauseResult>
  /** the whole work: durable (pause) or running (resume) */
  done: Deferred<unknown>
}

export class SessionWork {
  private readonly work = new Map<string, Work>()

  get(sessionId: string): Work | undefined {
    return this.work.get(sessionId)
  }

  has(sessionId: string): boolean {
    return this.work.has(sessionId)
  }

  begin(sessionId: string, kind: Work['kind']): Work {
    const w: Work = { kind, stopped: deferred(), done: deferred() }
    this.work.set(sessionId, w)
    return w
  }

  end(sessionId: string, w: Work): void {
    if (this.work.get(sessionId) === w) this.work.delete(sessionId)
  }

  /** Waits until no work of the session is under way. */
  async settled(sessionId: string): Promise<void> {
    for (let w = this.work.get(sessionId); w; w = this.work.get(sessionId)) await w.done.promise.catch(() => undefined)
  }

  /**
   * Runs `fn` as the session's one piece of work: once nothing else runs, and with every pause or
   * resume that arrives meanwhile waiting for it.
   */
  async hold<T>(sessionId: string, fn: () => Promise<T>): Promise<T> {
    // another caller may begin between settled() and here: begin only when nothing is registered
    while (this.work.has(sessionId)) await this.settled(sessionId)
    const w = this.begin(sessionId, 'hold')
    try {
      const r = await fn()
      w.done.resolve(r)
      return r
    } catch (e) {
      w.done.reject(e)
      throw e
    } finally {
      this.end(sessionId, w)
    }
  }
}
