// A stand-in for the core in renderer tests: calls answer from handlers the test sets, events
// are emitted by the test. Nothing here touches a real door.
import { calls as contract, type CallArgs, type CallName, type CallResult, type EventName, type EventPayload } from '../../../shared/contract'
import { EventListeners } from '../../../shared/event-listeners'
import type { Server, Session } from '../../../shared/models'
import type { StreamBytes } from '../../../shared/bridge'
import { CallError, decodedStreamData, type Client } from '../api/client'
import { fromBase64, toBase64 } from '../terminal/codec'

type Handler = (args: any) => unknown

export class FakeClient implements Client {
  readonly host = 'browser' as const
  readonly calls: Array<{ name: string; args: any }> = []
  private readonly handlers = new Map<string, Handler>()
  private readonly listeners = new EventListeners()
  private readonly reconnectListeners = new Set<() => void>()
  private readonly connectionListeners = new Set<(up: boolean) => void>()
  clipboard = ''
  readonly app = {
    openExternal: async () => true,
    readClipboard: async () => this.clipboard,
    writeClipboard: async (t: string) => {
      this.clipboard = t
    },
  }

  handle<N extends CallName>(name: N, fn: (args: CallArgs<N>) => CallResult<N> | Promise<CallResult<N>>): this {
    this.handlers.set(name, fn as Handler)
    return this
  }

  fail(name: CallName, code: CallError['code'], message: string): this {
    this.handlers.set(name, () => {
      throw new CallError(code, message)
    })
    return this
  }

  async call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> {
    this.calls.push({ name, args })
    const h = this.handlers.get(name)
    if (!h) throw new CallError('usage', `unknown call: ${name}`)
    // shaped by the contract as the core's answer would be: a whole session given for a list answers its summary
    return contract[name].result.parse(await h(args)) as CallResult<N>
  }

  callsOf(name: CallName) {
    return this.calls.filter((c) => c.name === name).map((c) => c.args)
  }

  on<E extends EventName>(name: E, listener: (payload: EventPayload<E>) => void): () => void {
    return this.listeners.add(name, listener as (p: unknown) => void)
  }

  onStreamData(listener: (data: StreamBytes) => void): () => void {
    return decodedStreamData((name, l) => this.on(name, l), listener)
  }

  emit<E extends EventName>(name: E, payload: EventPayload<E>): void {
    this.listeners.emit(name, payload)
  }

  onReconnect(listener: () => void) {
    this.reconnectListeners.add(listener)
    return () => this.reconnectListeners.delete(listener)
  }

  onConnection(listener: (up: boolean) => void) {
    this.connectionListeners.add(listener)
    return () => this.connectionListeners.delete(listener)
  }

  reconnect(): void {
    for (const l of this.connectionListeners) l(false)
    for (const l of this.connectionListeners) l(true)
    for (const l of this.reconnectListeners) l()
  }
}

/** The laptop's own engine, as the core lists it. */
export const localServer: Server = { name: 'local', kind: 'local', url: 'unix:///var/run/docker.sock', alias: null, identity: null, hostKeyFingerprint: null, ratePerHour: 0, state: 'connected', createdAt: '2025-01-01T00:00:00Z', memoryPause: null }

let n = 0
export function session(over: Partial<Session> = {}): Session {
  n++
  return {
    id: `s${String(n).padStart(9, '0')}`,
    name: `session-${n}`,
    server: 'local',
    state: 'running',
    mode: null,
    pausedBy: null,
    durable: false,
    image: 'berth-base:bookworm',
    containerId: 'c',
    route: `calm-otter-${n}`,
    env: {},
    secrets: [],
    workspace: null,
    createdAt: new Date(Date.now() - n * 60_000).toISOString(),
    updatedAt: new Date().toISOString(),
    finishedAt: null,
    savedAt: null,
    failure: null,
    autoPause: true,
    ...over,
  }
}

export const flush = () => new Promise((r) => setTimeout(r, 0))

/** Text to and from the base64 that stream data travels as. */
export const b64 = (s: string) => toBase64(new TextEncoder().encode(s))
export const unb64 = (s: string) => new TextDecoder().decode(fromBase64(s))
