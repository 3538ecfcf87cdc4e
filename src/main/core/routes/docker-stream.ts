// Docker's attach stream, read with backpressure: a Writable that hands each piece of output to a
// sink and asks for the next chunk only when the sink has taken it. Without a tty, Docker
// multiplexes stdout and stderr in frames ([fd, 0, 0, 0, size u32 BE] + payload); payloads are
// passed on as slices of the chunk they arrived in, never copied or re-encoded.
import { Writable } from 'node:stream'

/** Takes one piece of output; a promise means "wait before sending more". */
export type Sink = (fd: 1 | 2, chunk: Buffer) => Promise<void> | void

export class DockerStreamReader extends Writable {
  private readonly header = Buffer.alloc(8)
  private headerFill = 0
  private remaining = 0
  private fd: 1 | 2 = 1

  constructor(
    private readonly multiplexed: boolean,
    private readonly sink: Sink,
  ) {
    super({ highWaterMark: 64 * 1024 })
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (err?: Error | null) => void): void {
    if (!this.multiplexed) {
      this.deliver([[1, chunk]], cb)
      return
    }
    const pieces: Array<[1 | 2, Buffer]> = []
    let i = 0
    while (i < chunk.length) {
      if (this.remaining === 0) {
        const take = Math.min(8 - this.headerFill, chunk.length - i)
        chunk.copy(this.header, this.headerFill, i, i + take)
        this.headerFill += take
        i += take
        if (this.headerFill === 8) {
          this.headerFill = 0
          this.fd = this.header[0] === 2 ? 2 : 1
          this.remaining = this.header.readUInt32BE(4)
        }
        continue
      }
      const take = Math.min(this.remaining, chunk.length - i)
      pieces.push([this.fd, chunk.subarray(i, i + take)])
      this.remaining -= take
      i += take
    }
    this.deliver(pieces, cb)
  }

  private deliver(pieces: Array<[1 | 2, Buffer]>, cb: (err?: Error | null) => void): void {
    let k = 0
    const next = (): void => {
      while (k < pieces.length) {
        const [fd, buf] = pieces[k++]!
        let r: Promise<void> | void
        try {
          r = this.sink(fd, buf)
        } catch (e) {
          return cb(e as Error)
        }
        if (r) {
          r.then(next, (e: Error) => cb(e))
          return
        }
      }
      cb()
    }
    next()
  }
}

/**
 * Strips the first line of one fd (where a wrapper script reports its pid) and hands it over;
 * everything after it passes through untouched.
 */
export function firstLineTap(fd: 1 | 2, onLine: (line: string) => void, sink: Sink): Sink {
  let pending: Buffer | undefined = Buffer.alloc(0)
  return (f, chunk) => {
    if (f !== fd || pending === undefined) return sink(f, chunk)
    const joined = pending.length ? Buffer.concat([pending, chunk]) : chunk
    const nl = joined.indexOf(0x0a)
    if (nl < 0 && joined.length < 256) {
      pending = joined
      return
    }
    pending = undefined
    const cut = nl < 0 ? 0 : nl + 1
    onLine(joined.subarray(0, cut).toString('latin1').replace(/\r?\n$/, ''))
    const rest = joined.subarray(cut)
    return rest.length ? sink(f, rest) : undefined
  }
}
