// `window.berth` for a browser tab (`berth serve`): the contract over the WebSocket door, with the
// same frames as the control socket. Reconnects by itself; calls made while down fail at once
// with a clear message rather than hang.
import type { BerthBridge, StreamBytes } from '../../../shared/bridge'
import type { ErrorBody } from '../../../shared/errors'
import { EventListeners } from '../../../shared/event-listeners'
import type { Envelope, ServerFrame } from '../../../shared/wire'

type Pending = (envelope: Envelope<unknown>) => void

/** What the bridge needs of a WebSocket (a page's own, or one held in a worker: worker-socket.ts). */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(): void
  onopen: (() => void) | null
  onmessage: ((ev: { data: unknown }) => void) | null
  onclose: (() => void) | null
  /** a socket that decodes stream data itself hands it over here instead of as frames */
  onbytes?: ((data: StreamBytes) => void) | null
}
export interface SocketConstructor {
  new (url: string): SocketLike
  readonly OPEN: number
}

export interface WebSocketBridgeOptions {
  /** ws://127.0.0.1:PORT/TOKEN/ws */
  url: string
  /** the socket to use (default: the page's WebSocket) */
  WebSocketImpl?: SocketConstructor
  maxBackoffMs?: number
}

const LOST: ErrorBody = { code: 'unreachable', message: 'the connection to Berth was lost: it reconnects by itself, try again in a moment' }

/** ws://…/TOKEN/ws from the page's own address (http://127.0.0.1:PORT/TOKEN/). */
export function socketUrlFor(location: { protocol: string; host: string; pathname: string }): string {
  const base = location.pathname.endsWith('/') ? location.pathname : location.pathname.replace(/[^/]*$/, '')
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${base}ws`
}

export function createWebSocketBridge(options: WebSocketBridgeOptions): BerthBridge {
  // a page's WebSocket is a SocketLike whose handlers also get an event the bridge does not read
  const Impl = options.WebSocketImpl ?? (WebSocket as unknown as SocketConstructor)
  const maxBackoff = options.maxBackoffMs ?? 5000
  const pending = new Map<number, Pending>()
  const listeners = new EventListeners()
  const bytesListeners = new Set<(data: StreamBytes) => void>()
  let decodes = false
  const connectionListeners = new Set<(up: boolean) => void>()
  let nextId = 1
  let socket: SocketLike | undefined
  let up = false
  let backoff = 250
  let opening: Promise<void> | undefined

  const setUp = (value: boolean) => {
    if (up === value) return
    up = value
    for (const l of [...connectionListeners]) l(value)
  }

  const connect = (): Promise<void> =>
    (opening ??= new Promise<void>((resolve) => {
      const ws = new Impl(options.url)
      socket = ws
      if ('onbytes' in ws) {
        decodes = true
        ws.onbytes = (data) => {
          if (socket === ws) for (const l of bytesListeners) l(data)
        }
      }
      ws.onopen = () => {
        backoff = 250
        opening = undefined
        setUp(true)
        resolve()
      }
      ws.onmessage = (ev) => {
        if (socket !== ws) return
        let frame: ServerFrame
        try {
          frame = JSON.parse(String(ev.data)) as ServerFrame
        } catch {
          return
        }
        if (frame.t === 'event') {
          listeners.emit(frame.name, frame.payload)
          return
        }
        const done = pending.get(frame.id)
        if (!done) return
        pending.delete(frame.id)
        done(frame.t === 'result' ? { result: frame.result } : { error: frame.error })
      }
      ws.onclose = () => {
        if (socket !== ws) return
        socket = undefined
        opening = undefined
        for (const done of pending.values()) done({ error: LOST })
        pending.clear()
        setUp(false)
        resolve()
        setTimeout(() => {
          if (!up && !opening) void connect()
        }, backoff)
        backoff = Math.min(maxBackoff, backoff * 2)
      }
    }))

  void connect()

  return {
    host: 'browser',
    core: {
      call: async (name, args) => {
        if (!up) await connect()
        const ws = socket
        if (!ws || ws.readyState !== Impl.OPEN) return { error: LOST }
        const id = nextId++
        return await new Promise((resolve) => {
          pending.set(id, resolve as Pending)
          ws.send(JSON.stringify({ t: 'call', id, name, args }))
        })
      },
      on: (name, listener) => listeners.add(name, listener as (payload: unknown) => void),
      // only when the socket decodes: otherwise stream.data comes through on() like any event
      ...(decodes
        ? {
            onStreamBytes: (listener: (data: StreamBytes) => void) => {
              bytesListeners.add(listener)
              return () => void bytesListeners.delete(listener)
            },
          }
        : {}),
    },
    onConnection: (listener) => {
      connectionListeners.add(listener)
      return () => {
        connectionListeners.delete(listener)
      }
    },
    app: {
      openExternal: async (url) => {
        // a browser tab opens links itself; only http(s) leave, in a new tab without an opener
        if (!/^https?:\/\//.test(url)) return false
        return window.open(url, '_blank', 'noopener,noreferrer') !== null
      },
    },
  }
}
