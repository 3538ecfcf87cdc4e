// A network namespace joined to the host by a veth pair: what runs inside (an office sshd) is
// reachable at `inner` until the link goes down, and then packets vanish without a reset, as on a
// real network that partitions.
import { execFileSync } from 'node:child_process'

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'ignore' })

export class Partition {
  readonly hostIf: string
  readonly inner: string
  private readonly outer: string

  /** `n`: a small number no other partition of this run uses (names the namespace and its /30) */
  constructor(readonly n: number) {
    this.hostIf = `bpart${n}h`
    this.outer = `10.213.${n}.1`
    this.inner = `10.213.${n}.2`
  }

  get name(): string {
    return `berth-part-${this.n}`
  }

  up(): void {
    this.down(true)
    ip('netns', 'add', this.name)
    ip('link', 'add', this.hostIf, 'type', 'veth', 'peer', 'name', `bpart${this.n}n`)
    ip('link', 'set', `bpart${this.n}n`, 'netns', this.name)
    ip('addr', 'add', `${this.outer}/30`, 'dev', this.hostIf)
    ip('link', 'set', this.hostIf, 'up')
    ip('netns', 'exec', this.name, 'ip', 'addr', 'add', `${this.inner}/30`, 'dev', `bpart${this.n}n`)
    ip('netns', 'exec', this.name, 'ip', 'link', 'set', `bpart${this.n}n`, 'up')
    ip('netns', 'exec', this.name, 'ip', 'link', 'set', 'lo', 'up')
  }

  /** What the host sends into the namespace goes at most `rate` (tc's units, e.g. '200mbit'): a transfer takes long enough to be cut half way. */
  slow(rate: string): void {
    execFileSync('tc', ['qdisc', 'replace', 'dev', this.hostIf, 'root', 'tbf', 'rate', rate, 'burst', '256kb', 'latency', '400ms'], { stdio: 'ignore' })
  }

  /** The link goes down: nothing crosses, nothing is refused. */
  cut(): void {
    ip('link', 'set', this.hostIf, 'down')
  }

  heal(): void {
    ip('link', 'set', this.hostIf, 'up')
  }

  down(quiet = false): void {
    try {
      ip('link', 'del', this.hostIf)
    } catch (e) {
      if (!quiet) void e
    }
    try {
      ip('netns', 'del', this.name)
    } catch (e) {
      if (!quiet) void e
    }
  }
}
