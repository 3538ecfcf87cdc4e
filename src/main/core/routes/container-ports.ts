// Reaching a TCP port inside a session: a small relay started inside the container (docker exec,
// so the same call works on the local socket and over a server's one persistent ssh connection)
// connects to the port on the container's own loopback, IPv4 or IPv6. Going to the container's
// address from outside was tried and dropped: where that address is not routed (Docker Desktop,
// a bridge renumbered by another engine) the packets follow the default route and some other
// machine answers. Through the relay, a forward can reach nothing but the session itself, and
// listeners bound to localhost only (most dev servers) are reached too.
import { Duplex } from 'node:stream'
import type Dockerode from 'dockerode'
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { startContainerProcess } from './container-process'
import { DockerStreamReader } from './docker-stream'

const RELAY_TIMEOUT_MS = 15_000

/** A socket-like stream: http.Agent calls these on the sockets it keeps alive. */
export type PortStream = Duplex & {
  setKeepAlive?(...a: unknown[]): unknown
  setNoDelay?(...a: unknown[]): unknown
  setTimeout?(...a: unknown[]): unknown
  ref?(): unknown
  unref?(): unknown
}

export class ContainerPorts {
  /** Opens a connection to `port` on the container's loopback. */
  async connect(engine: Engine, containerId: string, port: number): Promise<PortStream> {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BerthError('usage', `not a port: ${port}`)
    return await openRelay(engine.docker, containerId, port)
  }
}

/** Adds the no-op socket methods http.Agent expects, to streams that are not net.Sockets. */
function socketLike(s: Duplex): PortStream {
  const p = s as PortStream
  const self = () => p
  p.setKeepAlive ??= self
  p.setNoDelay ??= self
  p.setTimeout ??= self
  p.ref ??= self
  p.unref ??= self
  return p
}

/** The relay's stdin/stdout as one duplex, with backpressure both ways. */
class RelayStream extends Duplex {
  private wake: (() => void) | undefined

  constructor(private readonly inner: Duplex) {
    super({ allowHalfOpen: true })
    let ended = false
    inner.on('end', () => (ended = true))
    inner.on('error', (e) => this.destroy(e))
    // a stream that closes without ending was cut: what was read so far is not the whole answer
    inner.on('close', () => {
      if (!ended) this.destroy()
    })
  }

  /** The relay's stdout ended and every piece of it was pushed. */
  finished(): void {
    this.push(null)
  }

  /** Called by the reader for each piece of the relay's stdout. */
  deliver(chunk: Buffer): Promise<void> | void {
    if (this.destroyed) return
    if (this.push(chunk)) return
    return new Promise((r) => (this.wake = r))
  }

  override _read(): void {
    const w = this.wake
    this.wake = undefined
    w?.()
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.inner.write(chunk, cb)
  }

  override _final(cb: (e?: Error | null) => void): void {
    this.inner.end()
    cb()
  }

  override _destroy(err: Error | null, cb: (e?: Error | null) => void): void {
    this.wake?.()
    this.inner.destroy()
    cb(err)
  }
}

async function openRelay(docker: Dockerode, containerId: string, port: number): Promise<PortStream> {
  const proc = await startContainerProcess(docker, containerId, { kind: 'relay', command: String(port), tty: false, env: {} })
  const relay = new RelayStream(proc.stream)
  let status = ''
  let settle: ((ok: boolean) => void) | undefined
  const ready = new Promise<boolean>((r) => (settle = r))
  const reader = new DockerStreamReader(true, (fd, chunk) => {
    if (fd === 1) return relay.deliver(chunk)
    if (settle) {
      status += chunk.toString('utf8')
      const nl = status.indexOf('\n')
      if (nl >= 0) {
        const s = settle
        settle = undefined
        status = status.slice(0, nl)
        s(status === '+')
      }
    }
  })
  proc.stream.pipe(reader)
  reader.on('finish', () => relay.finished())
  proc.stream.on('close', () => settle?.(false))
  const timer = setTimeout(() => settle?.(false), RELAY_TIMEOUT_MS)
  const ok = await ready
  clearTimeout(timer)
  if (!ok) {
    relay.destroy()
    throw new BerthError('unreachable', status.startsWith('-') ? status.slice(1) : `nothing answers on port ${port} in this session`)
  }
  return socketLike(relay)
}
