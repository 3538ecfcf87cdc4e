// Id-keyed streams (exec output, terminals): open returns an id; data, resize and close carry it.
// Output is flow-controlled: past HIGH unacknowledged bytes the source pauses until the client
// acknowledges down to LOW (xterm.js stalls with more than ~500 kB of backlog).
import { randomBytes } from 'node:crypto'
import { BerthError, type ErrorCode } from '../../../shared/errors'
import type { EventName, EventPayload } from '../../../shared/contract'

export const HIGH_WATERMARK = 512 * 1024
export const LOW_WATERMARK = 128 * 1024
/**
 * Output is sent in batches: a program drawing its screen (tmux behind a slow reader) writes in
 * pieces of a few hundred bytes, and a message each cost the page a task each. Chunks that arrive
 * within COALESCE_MS go out together, or at once past COALESCE_BYTES.
 */
export const COALESCE_MS = 4
export const COALESCE_BYTES = 64 * 1024

/** A door connection: where a stream's events go, and who may drive it. */
export interface StreamOwner {
  readonly id: string
  send<N extends EventName>(name: N, payload: EventPayload<N>): void
  /** a stream's output: the owner's door decides how it travels (a stream.data event, or a binary frame) */
  sendData(streamId: string, fd: 1 | 2, data: Buffer): void
}

/** The owner of calls made on no client's behalf (the tray, the OS's power events): it hears nothing. */
export const silentOwner = (id: string): StreamOwner => ({ id, send: () => undefined, sendData: () => undefined })

export interface StreamSource {
  write(data: Buffer): void
  end(): void
  resize(cols: number, rows: number): void
  close(): void
  pause(): void
  resume(): void
}

interface Entry {
  owner: StreamOwner
  /** the session the stream runs in, so a pause can detach the session's streams */
  sessionId: string | undefined
  /** a terminal (tty) stream: its input counts as a person typing */
  terminal: boolean
  source: StreamSource | undefined
  unacked: number
  paused: boolean
  pending: Array<() => void>
  closed: boolean
  /** output not sent yet, all from one fd */
  out: { fd: 1 | 2; chunks: Buffer[]; bytes: number; timer: ReturnType<typeof setTimeout> } | undefined
}

export class StreamHub {
  private readonly streams = new Map<string, Entry>()
  private readonly inputListeners = new Set<(sessionId: string, terminal: boolean) => void>()

  /** Registers a stream before its source exists, so early output can be routed. */
  create(owner: StreamOwner, session?: { sessionId: string; terminal?: boolean }): string {
    const id = randomBytes(8).toString('hex')
    this.streams.set(id, {
      owner,
      sessionId: session?.sessionId,
      terminal: !!session?.terminal,
      source: undefined,
      unacked: 0,
      paused: false,
      pending: [],
      closed: false,
      out: undefined,
    })
    return id
  }

  /** Called with the session whenever a client sends input to one of its streams (idle tracking). */
  onInput(listener: (sessionId: string, terminal: boolean) => void): () => void {
    this.inputListeners.add(listener)
    return () => this.inputListeners.delete(listener)
  }

  /**
   * Detaches every stream of a session (before a checkpoint: exec sessions live outside the
   * container's state). Their owners get stream.exit with the reason; views (tmux) are unaffected.
   */
  closeSession(sessionId: string, reason: string): number {
    let n = 0
    for (const [id, e] of this.streams) {
      if (e.sessionId !== sessionId) continue
      this.streams.delete(id)
      this.flush(id, e) // what the session printed before the detach still reaches its owner
      this.drop(e)
      e.owner.send('stream.exit', { streamId: id, exitCode: null, error: reason, errorCode: 'conflict' })
      n++
    }
    return n
  }

  countOfSession(sessionId: string): number {
    let n = 0
    for (const e of this.streams.values()) if (e.sessionId === sessionId) n++
    return n
  }

  attach(id: string, source: StreamSource): void {
    const e = this.streams.get(id)
    if (!e) return source.close()
    e.source = source
    if (e.paused) source.pause()
  }

  data(id: string, fd: 1 | 2, chunk: Buffer): void {
    const e = this.streams.get(id)
    if (!e || e.closed) return
    e.unacked += chunk.length
    if (e.out && e.out.fd !== fd) this.flush(id, e)
    if (!e.out) e.out = { fd, chunks: [], bytes: 0, timer: setTimeout(() => this.flush(id, e), COALESCE_MS) }
    e.out.chunks.push(chunk)
    e.out.bytes += chunk.length
    if (e.out.bytes >= COALESCE_BYTES) this.flush(id, e)
    if (!e.paused && e.unacked > HIGH_WATERMARK) {
      e.paused = true
      e.source?.pause()
    }
  }

  private flush(id: string, e: Entry): void {
    const out = e.out
    if (!out) return
    e.out = undefined
    clearTimeout(out.timer)
    if (e.closed) return
    const data = out.chunks.length === 1 ? out.chunks[0]! : Buffer.concat(out.chunks, out.bytes)
    e.owner.sendData(id, out.fd, data)
  }

  /** Ends a stream on the hub's side: what was not sent yet is dropped with it. */
  private drop(e: Entry): void {
    e.closed = true
    if (e.out) clearTimeout(e.out.timer)
    e.out = undefined
    e.source?.close()
  }

  exit(id: string, exitCode: number | null, error?: { code: ErrorCode; message: string }): void {
    const e = this.streams.get(id)
    if (!e || e.closed) return
    this.flush(id, e) // the last output before the exit
    e.closed = true
    this.streams.delete(id)
    e.owner.send('stream.exit', error ? { streamId: id, exitCode, error: error.message, errorCode: error.code } : { streamId: id, exitCode })
  }

  private own(owner: StreamOwner, id: string): Entry {
    const e = this.streams.get(id)
    if (!e || e.owner.id !== owner.id) throw new BerthError('not_found', `stream not found: ${id}`)
    return e
  }

  write(owner: StreamOwner, id: string, data: Buffer | undefined, eof: boolean): void {
    const e = this.own(owner, id)
    if (data && data.length) e.source?.write(data)
    if (eof) e.source?.end()
    if (e.sessionId && data && data.length) for (const l of this.inputListeners) l(e.sessionId, e.terminal)
  }

  resize(owner: StreamOwner, id: string, cols: number, rows: number): void {
    this.own(owner, id).source?.resize(cols, rows)
  }

  ack(owner: StreamOwner, id: string, bytes: number): void {
    const e = this.own(owner, id)
    e.unacked = Math.max(0, e.unacked - bytes)
    if (e.paused && e.unacked <= LOW_WATERMARK) {
      e.paused = false
      e.source?.resume()
    }
  }

  close(owner: StreamOwner, id: string): void {
    const e = this.own(owner, id)
    this.streams.delete(id)
    this.drop(e)
  }

  /** A door connection went away: its streams go with it. */
  closeAllOf(owner: StreamOwner): void {
    for (const [id, e] of this.streams) {
      if (e.owner.id !== owner.id) continue
      this.streams.delete(id)
      this.drop(e)
    }
  }

  countFor(predicate: (owner: StreamOwner) => boolean): number {
    let n = 0
    for (const e of this.streams.values()) if (predicate(e.owner)) n++
    return n
  }
}
