import { describe, expect, it } from 'vitest'
import { b64, FakeClient } from '../test/fake-client'

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
import { StreamRouter } from './stream-router'

describe('routing stream output', () => {
  it('holds output that arrives before its stream is claimed, then delivers it in order', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('one') })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('two') })
    const got: string[] = []
    router.claim('a', { data: (d) => got.push(text(d)), exit: () => got.push('exit') })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('three') })
    client.emit('stream.data', { streamId: 'b', fd: 1, data: b64('not mine') })
    client.emit('stream.exit', { streamId: 'a', exitCode: 0 })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('after') })
    expect(got).toEqual(['one', 'two', 'three', 'exit'])
  })

  it('delivers an exit that came before the claim', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('bye') })
    client.emit('stream.exit', { streamId: 'a', exitCode: 3 })
    const got: unknown[] = []
    router.claim('a', { data: (d) => got.push(text(d)), exit: (code) => got.push(code) })
    expect(got).toEqual(['bye', 3])
  })

  it('drops a released stream', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    const got: string[] = []
    router.claim('a', { data: (d) => got.push(text(d)), exit: () => undefined })
    router.release('a')
    client.emit('stream.data', { streamId: 'a', fd: 1, data: b64('x') })
    expect(got).toEqual([])
  })
})
