// Routes stream.data and stream.exit to whoever owns the stream id. Output can arrive before
// the call that opened the stream has answered (the core starts the exec first), so data for an
// id nobody claimed yet is held briefly and handed over when it is claimed.
import type { Client } from '../api/client'

export interface StreamSink {
  data(bytes: Uint8Array): void
  exit(exitCode: number | null, error?: string): void
}

interface Early {
  chunks: Uint8Array[]
  exit?: { exitCode: number | null; error?: string | undefined }
  at: number
}

const EARLY_TTL_MS = 30_000
const EARLY_MAX_CHUNKS = 4096

export class StreamRouter {
  private readonly sinks = new Map<string, StreamSink>()
  private readonly early = new Map<string, Early>()

  constructor(client: Client) {
    client.onStreamData((d) => {
      const sink = this.sinks.get(d.streamId)
      if (sink) return sink.data(d.bytes)
      const e = this.earlyFor(d.streamId)
      if (e.chunks.length < EARLY_MAX_CHUNKS) e.chunks.push(d.bytes)
    })
    client.on('stream.exit', (x) => {
      const sink = this.sinks.get(x.streamId)
      if (sink) {
        this.sinks.delete(x.streamId)
        return sink.exit(x.exitCode, x.error)
      }
      this.earlyFor(x.streamId).exit = { exitCode: x.exitCode, error: x.error }
    })
  }

  private earlyFor(id: string): Early {
    const now = Date.now()
    for (const [k, v] of this.early) if (now - v.at > EARLY_TTL_MS) this.early.delete(k)
    let e = this.early.get(id)
    if (!e) this.early.set(id, (e = { chunks: [], at: now }))
    return e
  }

  /** Claims a stream: earlier output is delivered at once, in order. */
  claim(id: string, sink: StreamSink): void {
    const e = this.early.get(id)
    this.early.delete(id)
    if (e?.exit) {
      for (const c of e.chunks) sink.data(c)
      return sink.exit(e.exit.exitCode, e.exit.error)
    }
    this.sinks.set(id, sink)
    if (e) for (const c of e.chunks) sink.data(c)
  }

  release(id: string): void {
    this.sinks.delete(id)
    this.early.delete(id)
  }
}
