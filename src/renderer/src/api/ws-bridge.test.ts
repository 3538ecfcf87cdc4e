import { afterEach, describe, expect, it, vi } from 'vitest'
import { createWebSocketBridge, socketUrlFor } from './ws-bridge'

/** A WebSocket the test drives by hand. */
class FakeSocket {
  static OPEN = 1
  static all: FakeSocket[] = []
  readyState = 0
  sent: any[] = []
  onopen: (() => void) | null = null
  onmessage: ((e: { data: string }) => void) | null = null
  onclose: (() => void) | null = null
  constructor(readonly url: string) {
    FakeSocket.all.push(this)
  }
  send(s: string) {
    this.sent.push(JSON.parse(s))
  }
  open() {
    this.readyState = 1
    this.onopen?.()
  }
  reply(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) })
  }
  drop() {
    this.readyState = 3
    this.onclose?.()
  }
}

afterEach(() => {
  FakeSocket.all = []
  vi.useRealTimers()
})

describe('the WebSocket bridge', () => {
  it('derives the door address from the page address', () => {
    expect(socketUrlFor({ protocol: 'http:', host: '127.0.0.1:8023', pathname: '/tok/' })).toBe('ws://127.0.0.1:8023/tok/ws')
    expect(socketUrlFor({ protocol: 'http:', host: '127.0.0.1:8023', pathname: '/tok/index.html' })).toBe('ws://127.0.0.1:8023/tok/ws')
  })

  it('sends calls once open, matches results by id and dispatches events', async () => {
    const bridge = createWebSocketBridge({ url: 'ws://x/t/ws', WebSocketImpl: FakeSocket as never })
    const ws = FakeSocket.all[0]!
    const result = bridge.core.call('daemon.info', {})
    const events: unknown[] = []
    const off = bridge.core.on('session.changed', (s) => events.push(s))
    ws.open()
    await vi.waitFor(() => expect(ws.sent).toHaveLength(1))
    expect(ws.sent[0]).toEqual({ t: 'call', id: 1, name: 'daemon.info', args: {} })
    ws.reply({ t: 'result', id: 1, result: { pid: 7 } })
    expect(await result).toEqual({ result: { pid: 7 } })
    const failing = bridge.core.call('session.show', { id: 'nope' })
    await vi.waitFor(() => expect(ws.sent).toHaveLength(2))
    ws.reply({ t: 'error', id: 2, error: { code: 'not_found', message: 'session not found: nope' } })
    expect(await failing).toEqual({ error: { code: 'not_found', message: 'session not found: nope' } })
    ws.reply({ t: 'event', name: 'session.changed', payload: { id: 'a' } })
    off()
    ws.reply({ t: 'event', name: 'session.changed', payload: { id: 'b' } })
    expect(events).toEqual([{ id: 'a' }])
  })

  it('fails calls in flight when the link drops, says so, and reconnects by itself', async () => {
    vi.useFakeTimers()
    const bridge = createWebSocketBridge({ url: 'ws://x/t/ws', WebSocketImpl: FakeSocket as never })
    const states: boolean[] = []
    bridge.onConnection!((up) => states.push(up))
    FakeSocket.all[0]!.open()
    const pending = bridge.core.call('session.list', {})
    await vi.advanceTimersByTimeAsync(0)
    FakeSocket.all[0]!.drop()
    expect(await pending).toMatchObject({ error: { code: 'unreachable' } })
    expect(states).toEqual([true, false])
    await vi.advanceTimersByTimeAsync(300)
    expect(FakeSocket.all).toHaveLength(2)
    FakeSocket.all[1]!.open()
    expect(states).toEqual([true, false, true])
    // the old socket's late frames are ignored
    const events: unknown[] = []
    bridge.core.on('progress', (p) => events.push(p))
    FakeSocket.all[0]!.reply({ t: 'event', name: 'progress', payload: 1 })
    FakeSocket.all[1]!.reply({ t: 'event', name: 'progress', payload: 2 })
    expect(events).toEqual([2])
  })

  it('takes stream data as bytes from a socket that decodes it (the worker), and as events from one that does not', () => {
    class DecodingSocket extends FakeSocket {
      onbytes: ((d: { streamId: string; fd: 1 | 2; bytes: Uint8Array }) => void) | null = null
    }
    const bridge = createWebSocketBridge({ url: 'ws://x/t/ws', WebSocketImpl: DecodingSocket as never })
    const ws = FakeSocket.all[0] as DecodingSocket
    ws.open()
    const got: string[] = []
    bridge.core.onStreamBytes!((d) => got.push(`${d.streamId}:${new TextDecoder().decode(d.bytes)}`))
    ws.onbytes!({ streamId: 's1', fd: 1, bytes: new TextEncoder().encode('hello') })
    expect(got).toEqual(['s1:hello'])
    expect(createWebSocketBridge({ url: 'ws://x/t/ws', WebSocketImpl: FakeSocket as never }).core.onStreamBytes).toBeUndefined()
  })
})
