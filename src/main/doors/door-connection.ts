// One client of a door (a CLI process, a browser tab, a window): it sends calls and receives their
// results, the events it subscribed to, and the data of the streams it opened.
import { randomBytes } from 'node:crypto'
import type { EventName, EventPayload } from '../../shared/contract'
import { binaryStreamFrame } from '../../shared/stream-frames'
import { CallFrame, eventFrame, type ServerFrame } from '../../shared/wire'
import type { CallContext } from '../core/api'
import type { Core } from '../core/core'
import type { Envelope } from '../../shared/wire'
import type { StreamOwner } from '../core/streams/stream-hub'

export class DoorConnection implements StreamOwner {
  readonly id = randomBytes(8).toString('hex')
  private subscribed: Set<string> | 'all' | null = null
  private readonly unsubscribe: () => void
  private closed = false

  constructor(
    private readonly core: Core,
    private readonly door: CallContext['door'],
    private readonly write: (frame: ServerFrame) => void,
    /** for a client that takes stream output as binary frames (stream-frames.ts) */
    private readonly writeBinary?: (frame: Uint8Array) => void,
  ) {
    this.unsubscribe = core.bus.onContract((name, payload) => {
      if (name === 'stream.data' || name === 'stream.exit') return // streams go only to their owner
      if (this.subscribed === 'all' || this.subscribed?.has(name)) this.send(name, payload)
    })
  }

  send<N extends EventName>(name: N, payload: EventPayload<N>): void {
    if (!this.closed) this.write(eventFrame(name, payload))
  }

  sendData(streamId: string, fd: 1 | 2, data: Buffer): void {
    if (this.closed) return
    if (this.writeBinary) this.writeBinary(binaryStreamFrame(streamId, fd, data))
    else this.write(eventFrame('stream.data', { streamId, fd, data: data.toString('base64') }))
  }

  subscribe(names: string[] | undefined): void {
    this.subscribed = names ? new Set(names) : 'all'
  }

  /** Handles one incoming frame; malformed frames get an error and change nothing. */
  async receive(raw: unknown): Promise<void> {
    const frame = CallFrame.safeParse(raw)
    if (!frame.success) {
      const id = typeof (raw as { id?: unknown })?.id === 'number' ? (raw as { id: number }).id : -1
      this.write({ t: 'error', id, error: { code: 'usage', message: 'malformed frame: expected {t:"call", id, name, args}' } })
      return
    }
    const { id, name, args } = frame.data
    const envelope = await this.call(name, args)
    if (this.closed) return
    if ('result' in envelope) this.write({ t: 'result', id, result: envelope.result })
    else this.write({ t: 'error', id, error: envelope.error })
  }

  /** One call through the core on behalf of this connection (the IPC door uses it directly). */
  call(name: string, args: unknown): Promise<Envelope<unknown>> {
    return this.core.call(name, args, { owner: this, door: this.door })
  }

  get isClosed(): boolean {
    return this.closed
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.unsubscribe()
    this.core.hub.closeAllOf(this)
  }
}
