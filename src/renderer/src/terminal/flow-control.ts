// Flow control, the client's half: the core stops reading a stream's source past a high
// watermark of unacknowledged bytes and resumes under a low one (stream-hub.ts). The terminal
// acknowledges bytes only once xterm.js has parsed them (its write callback), in batches, so a
// flood (`yes`) is throttled at the source and the page never holds more than about the high
// watermark of backlog: input such as Ctrl-C is never stuck behind megabytes of output.
export const ACK_BATCH_BYTES = 32 * 1024
export const ACK_DELAY_MS = 25

export class AckBatcher {
  private pending = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private stopped = false

  constructor(
    private readonly send: (bytes: number) => void,
    private readonly batch = ACK_BATCH_BYTES,
    private readonly delayMs = ACK_DELAY_MS,
  ) {}

  /** `n` bytes were rendered. */
  consumed(n: number): void {
    if (this.stopped) return
    this.pending += n
    if (this.pending >= this.batch) this.flush()
    else this.timer ??= setTimeout(() => this.flush(), this.delayMs)
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    if (this.stopped || this.pending === 0) return
    const n = this.pending
    this.pending = 0
    this.send(n)
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
  }
}
