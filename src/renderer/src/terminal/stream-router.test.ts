import { describe, expect, it } from 'vitest'
import { FakeClient } from '../test/fake-client'
import { StreamRouter } from './stream-router'

describe('routing stream output', () => {
  it('holds output that arrives before its stream is claimed, then delivers it in order', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'one' })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'two' })
    const got: string[] = []
    router.claim('a', { data: (d) => got.push(d), exit: () => got.push('exit') })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'three' })
    client.emit('stream.data', { streamId: 'b', fd: 1, data: 'not mine' })
    client.emit('stream.exit', { streamId: 'a', exitCode: 0 })
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'after' })
    expect(got).toEqual(['one', 'two', 'three', 'exit'])
  })

  it('delivers an exit that came before the claim', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'bye' })
    client.emit('stream.exit', { streamId: 'a', exitCode: 3 })
    const got: unknown[] = []
    router.claim('a', { data: (d) => got.push(d), exit: (code) => got.push(code) })
    expect(got).toEqual(['bye', 3])
  })

  it('drops a released stream', () => {
    const client = new FakeClient()
    const router = new StreamRouter(client)
    const got: string[] = []
    router.claim('a', { data: (d) => got.push(d), exit: () => undefined })
    router.release('a')
    client.emit('stream.data', { streamId: 'a', fd: 1, data: 'x' })
    expect(got).toEqual([])
  })
})
