// A memory dump's figures as its server job reports them, turned into the progress a user watches:
// what the dump is about to write (metric expect), what it has written so far (written, sampled on
// the server for the fast path and for Docker's own checkpoint alike) and what it wrote (metric
// dump). The same for a pause and for the later completion of a session a pause left frozen.
import type { JobLine } from '../engines/server-script/job-protocol'
import type { ProgressReporter } from '../progress'

export class DumpProgress {
  private writing = false
  private shown = 0

  /** `detail` keeps the expected size (a pause's record: what it was about to write). */
  constructor(
    private readonly progress: ProgressReporter,
    private readonly name: string,
    private readonly detail: Record<string, unknown>,
  ) {}

  private get expected(): number | null {
    return typeof this.detail.expectBytes === 'number' ? this.detail.expectBytes : null
  }

  /** Shows what LINE says of the dump; true when it was one of the dump's figures. */
  see(l: JobLine): boolean {
    if (l.kind === 'metric' && l.name === 'expect' && l.values.length >= 1) {
      this.detail.expectBytes = l.values[0]!
      this.writing = true
      this.shown = 0
      this.progress.bytes('memory', `writing the memory of ${this.name}`, 0, l.values[0]! || null, true)
      return true
    }
    // shown only, never recorded, and only forward (a late sample after the dump's end, or one
    // smaller than the last, moves nothing)
    if (l.kind === 'written') {
      if (!this.writing || l.bytes <= this.shown) return true
      this.shown = l.bytes
      this.progress.bytes('memory', `writing the memory of ${this.name}`, l.bytes, Math.max(this.expected ?? 0, l.bytes) || null)
      return true
    }
    if (l.kind === 'metric' && l.name === 'dump' && l.values.length >= 2) {
      this.writing = false
      this.progress.bytes('memory', `memory of ${this.name} written; making it durable`, l.values[1]!, this.expected ?? (l.values[1]! || null), true)
      return false
    }
    return false
  }
}
