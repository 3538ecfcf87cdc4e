// The renderer's one way into the core: typed calls that throw a CallError carrying the core's
// error code, events, and reconnection. Stores use it; components never call it during render.
import { calls, type CallArgs, type CallName, type CallResult, type EventName, type EventPayload } from '../../../shared/contract'
import type { BerthBridge } from '../../../shared/bridge'
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
  /** called after the link to the core came back (stores reload, terminals reattach) */
  onReconnect(listener: () => void): () => void
  onConnection(listener: (up: boolean) => void): () => void
  readonly app: BerthBridge['app']
}

/** Whether this build's contract has a call (screens grow as other features land). */
export const hasCall = (name: string): name is CallName => Object.prototype.hasOwnProperty.call(calls, name)

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
