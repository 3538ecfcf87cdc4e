// A WebSocket whose connection lives in a worker (socket-worker.ts): the same surface the bridge
// uses, so the bridge does not know which one it has.
import type { StreamBytes } from '../../../shared/bridge'
import type { SocketLike } from './ws-bridge'

/** main → worker: a frame to send (a string), or what to do with the connection */
export type WorkerCommand = string | { t: 'open'; url: string } | { t: 'close' }
/** worker → main: a frame that came (a string), stream data it decoded, or what became of the connection */
export type WorkerNotice = string | { t: 'bytes'; data: StreamBytes } | { t: 'open' } | { t: 'close' }

const CONNECTING = 0
const OPEN = 1
const CLOSED = 3

export class WorkerSocket implements SocketLike {
  static readonly OPEN = OPEN
  readyState = CONNECTING
  onopen: (() => void) | null = null
  onmessage: ((ev: { data: unknown }) => void) | null = null
  onclose: (() => void) | null = null
  onbytes: ((data: StreamBytes) => void) | null = null
  private readonly worker = new Worker(new URL('./socket-worker.ts', import.meta.url), { type: 'module' })

  constructor(url: string) {
    this.worker.onmessage = (e: MessageEvent<WorkerNotice>) => {
      const n = e.data
      if (typeof n === 'string') return this.onmessage?.({ data: n })
      if (n.t === 'bytes') return this.onbytes?.(n.data)
      if (n.t === 'open') {
        this.readyState = OPEN
        return this.onopen?.()
      }
      this.closed()
    }
    // a worker that cannot start (a CSP, a missing file) is a connection that closed
    this.worker.onerror = () => this.closed()
    this.post({ t: 'open', url })
  }

  private closed(): void {
    if (this.readyState === CLOSED) return
    this.readyState = CLOSED
    this.worker.terminate()
    this.onclose?.()
  }

  send(data: string): void {
    this.post(data)
  }

  close(): void {
    this.post({ t: 'close' })
  }

  private post(c: WorkerCommand): void {
    this.worker.postMessage(c)
  }
}
