import { describe, expect, it } from 'vitest'
import { COALESCE_BYTES, COALESCE_MS, StreamHub, type StreamOwner } from './stream-hub'

function owner() {
  const sent: Array<{ name: string; fd?: number; text?: string; exitCode?: number | null }> = []
  const o: StreamOwner = {
    id: 'door-1',
    send: (name, payload) => {
      const p = payload as { exitCode?: number | null }
      sent.push({ name, exitCode: p.exitCode })
    },
    sendData: (_id, fd, data) => sent.push({ name: 'stream.data', fd, text: data.toString() }),
  }
  return { o, sent }
}
const later = () => new Promise((r) => setTimeout(r, COALESCE_MS * 3))

describe('stream output', () => {
  it('goes out in one message when a program writes it in small pieces', async () => {
    const hub = new StreamHub()
    const { o, sent } = owner()
    const id = hub.create(o)
    for (const piece of ['\x1b[1;1H', 'hello ', 'from ', 'tmux']) hub.data(id, 1, Buffer.from(piece))
    expect(sent).toEqual([])
    await later()
    expect(sent).toEqual([{ name: 'stream.data', fd: 1, text: '\x1b[1;1Hhello from tmux' }])
  })

  it('keeps stdout and stderr apart and in order, and sends what is left before the exit', () => {
    const hub = new StreamHub()
    const { o, sent } = owner()
    const id = hub.create(o)
    hub.data(id, 1, Buffer.from('out-1 '))
    hub.data(id, 1, Buffer.from('out-2'))
    hub.data(id, 2, Buffer.from('err'))
    hub.data(id, 1, Buffer.from('out-3'))
    hub.exit(id, 0)
    expect(sent).toEqual([
      { name: 'stream.data', fd: 1, text: 'out-1 out-2' },
      { name: 'stream.data', fd: 2, text: 'err' },
      { name: 'stream.data', fd: 1, text: 'out-3' },
      { name: 'stream.exit', exitCode: 0 },
    ])
  })

  it('sends what a session printed before a pause detaches its streams', () => {
    const hub = new StreamHub()
    const { o, sent } = owner()
    const id = hub.create(o, { sessionId: 's1' })
    hub.data(id, 1, Buffer.from('last words'))
    expect(hub.closeSession('s1', 'the session is pausing')).toBe(1)
    expect(sent).toEqual([
      { name: 'stream.data', fd: 1, text: 'last words' },
      { name: 'stream.exit', exitCode: null },
    ])
  })

  it('sends a large burst at once, and nothing after the stream was closed', async () => {
    const hub = new StreamHub()
    const { o, sent } = owner()
    const id = hub.create(o)
    hub.data(id, 1, Buffer.alloc(COALESCE_BYTES, 'x'))
    expect(sent).toHaveLength(1)
    hub.data(id, 1, Buffer.from('tail'))
    hub.close(o, id)
    await later()
    expect(sent).toHaveLength(1)
  })
})
