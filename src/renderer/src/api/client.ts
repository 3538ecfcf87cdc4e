// The renderer's one way into the core: typed calls that throw a CallError carrying the core's
// error code, events, and reconnection. Stores use it; components never call it during render.
import type { CallArgs, CallName, CallResult, EventName, EventPayload } from '../../../shared/contract'
import type { BerthBridge, StreamBytes } from '../../../shared/bridge'
import { fromBase64 } from '../terminal/codec'
import type { ErrorCode } from '../../../shared/errors'

export class CallError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'CallError'
  }
}

export interface Client {
  readonly host: BerthBridge['host']
  call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>>
  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void): () => void
  /** stream.data as bytes, decoded by the door where it can (off the main thread) or here */
  onStreamData(listener: (data: StreamBytes) => void): () => void
  /** called after the link to the core came back (stores reload, terminals reattach) */
  onReconnect(listener: () => void): () => void
  onConnection(listener: (up: boolean) => void): () => void
  readonly app: BerthBridge['app']
}

/** stream.data events, decoded here (for doors that deliver them as the contract has them: base64). */
export function decodedStreamData(on: BerthBridge['core']['on'], listener: (data: StreamBytes) => void): () => void {
  return on('stream.data', ({ data, ...rest }) => listener({ ...rest, bytes: fromBase64(data) }))
}

/** Whether this build's contract has a call (screens grow as other features land). */

export function createClient(bridge: BerthBridge): Client {
  const reconnectListeners = new Set<() => void>()
  const subscribe = () => bridge.core.call('events.subscribe', {}).catch(() => undefined)
  void subscribe()
  let wasDown = false
  bridge.onConnection?.((up) => {
    if (!up) {
      wasDown = true
      return
    }
    if (!wasDown) return
    wasDown = false
    void subscribe().then(() => {
      for (const l of [...reconnectListeners]) l()
    })
  })
  return {
    host: bridge.host,
    app: bridge.app,
    async call(name, args) {
      const envelope = await bridge.core.call(name, args)
      if ('error' in envelope) throw new CallError(envelope.error.code, envelope.error.message, envelope.error.details)
      return envelope.result
    },
    on: (name, listener) => bridge.core.on(name, listener),
    onStreamData: (listener) => bridge.core.onStreamBytes?.(listener) ?? decodedStreamData((name, l) => bridge.core.on(name, l), listener),
    onReconnect(listener) {
      reconnectListeners.add(listener)
      return () => {
        reconnectListeners.delete(listener)
      }
    },
    onConnection(listener) {
      return bridge.onConnection?.(listener) ?? (() => undefined)
    },
  }
}
