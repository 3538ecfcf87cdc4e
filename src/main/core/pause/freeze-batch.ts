// Stage one of pause --all, once per server before any memory is written: the sessions of a server
// are frozen together and the files of all of them made durable by one sync (the server script's
// freeze-all), instead of each pause job freezing its own session with a handful of docker CLI and
// root-helper calls while the first dumps already take the CPU. Each pause waits here once it holds
// its container (execs held, facts read); the batch goes once every session of the server is in (or
// out), or a moment after the first came in. Every wait is bounded, and a session the batch could not
// freeze (or that came late) is frozen by its own pause job as before.
import type { FreezeAnswer, FreezeMember } from '../engines/server-script/freeze-all'
import { within } from '../deadline'

export type BatchFreeze = { frozen: true; execsEnded: number; atMs: number } | { frozen: false; reason: string }

/** How long a batch waits for the rest of its server's sessions once the first is in. */
export const GATHER_MS = 500

/** What a pause asks of its server's batch. */
export interface FreezeGate {
  /** Freezes the session with the others of its server; resolves once the server answered (or gave up). */
  join(sessionId: string, member: FreezeMember): Promise<BatchFreeze>
  /** The session will not join (paused already, nothing to freeze, failed before): the batch does not wait for it. */
  leave(sessionId: string): void
}

export class FreezeBatch implements FreezeGate {
  private readonly waiting = new Set<string>()
  private readonly joined = new Map<string, { member: FreezeMember; resolve: (f: BatchFreeze) => void }>()
  private timer: NodeJS.Timeout | undefined
  private gone = false

  /**
   * `sessions`: who may join; `run` freezes the members on the server (its answer per container
   * id); `answerMs`: how long the server is given before every member freezes on its own instead.
   */
  constructor(
    sessions: Iterable<string>,
    private readonly run: (members: FreezeMember[]) => Promise<Map<string, FreezeAnswer>>,
    private readonly answerMs: number,
    private readonly gatherMs = GATHER_MS,
  ) {
    for (const s of sessions) this.waiting.add(s)
  }

  join(sessionId: string, member: FreezeMember): Promise<BatchFreeze> {
    if (this.gone || !this.waiting.has(sessionId)) return Promise.resolve({ frozen: false, reason: "it came after the rest of its server's sessions were frozen" })
    this.waiting.delete(sessionId)
    const answer = new Promise<BatchFreeze>((resolve) => this.joined.set(sessionId, { member, resolve }))
    this.timer ??= setTimeout(() => void this.go(), this.gatherMs)
    if (this.waiting.size === 0) void this.go()
    return answer
  }

  leave(sessionId: string): void {
    if (!this.waiting.delete(sessionId)) return
    if (this.waiting.size === 0 && this.joined.size > 0) void this.go()
  }

  private async go(): Promise<void> {
    if (this.gone) return
    this.gone = true
    clearTimeout(this.timer)
    const members = [...this.joined.values()]
    const late = (reason: string) => new Map<string, FreezeAnswer>(members.map((m) => [m.member.facts[0] ?? '', { frozen: false, reason }]))
    const answers = await within(
      this.run(members.map((m) => m.member)).catch((e: unknown) => late(`the server's freeze of all its sessions failed: ${(e as Error).message}`)),
      this.answerMs,
      () => late(`the server did not freeze its sessions within ${Math.round(this.answerMs / 100) / 10} s`),
    )
    const atMs = performance.now()
    for (const m of members) {
      const a = answers.get(m.member.facts[0] ?? '') ?? { frozen: false, reason: 'the server did not say it was frozen' }
      m.resolve(a.frozen ? { frozen: true, execsEnded: a.execsEnded, atMs } : a)
    }
  }
}
