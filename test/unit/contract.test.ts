import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, type CallName } from '../../src/shared/contract'
import { binaryStreamFrame, readBinaryStreamFrame } from '../../src/shared/stream-frames'
import { Core } from '../../src/main/core/core'
import { installModules } from '../../src/main/core/modules'
import { installServe } from '../../src/main/serve'
import { silentOwner } from '../../src/main/core/streams/stream-hub'

describe('the contract', () => {
  it('reads back the binary stream frames it writes, and refuses what is not one', () => {
    const bytes = new Uint8Array([0, 27, 91, 255, 10])
    const frame = binaryStreamFrame('9f3a0c1d2e4b5a6c', 2, bytes)
    expect(frame.length).toBe(2 + 16 + bytes.length)
    const read = readBinaryStreamFrame(frame)
    expect(read).toMatchObject({ streamId: '9f3a0c1d2e4b5a6c', fd: 2 })
    expect([...read!.bytes]).toEqual([...bytes])
    expect(read!.bytes.buffer).toBe(frame.buffer) // a view, not a copy
    expect(readBinaryStreamFrame(new Uint8Array([3, 1, 65]))).toBeUndefined() // no fd 3
    expect(readBinaryStreamFrame(new Uint8Array([1, 40, 65]))).toBeUndefined() // shorter than its id
    expect(readBinaryStreamFrame(new Uint8Array([]))).toBeUndefined()
  })

  it('has a handler for every call once every module is installed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'berth-contract-'))
    const core = await Core.open({ home, host: 'daemon', localSocket: '/nonexistent.sock' })
    try {
      installModules(core)
      installServe(core)
      expect(core.missingHandlers(Object.keys(calls) as CallName[])).toEqual([])
    } finally {
      await core.close()
      rmSync(home, { recursive: true, force: true })
    }
  })

  it('answers bad arguments with a usage error and never calls the handler', async () => {
    const home = mkdtempSync(join(tmpdir(), 'berth-contract-'))
    const core = await Core.open({ home, host: 'daemon', localSocket: '/nonexistent.sock' })
    try {
      const owner = silentOwner('o')
      expect(await core.call('session.create', { image: 42 }, { owner, door: 'control' })).toEqual({
        error: { code: 'usage', message: 'bad arguments for session.create: image: Invalid input: expected string, received number' },
      })
      expect(await core.call('no.such.call', {}, { owner, door: 'control' })).toEqual({ error: { code: 'usage', message: 'unknown call: no.such.call' } })
      const second = Core.open({ home, host: 'daemon' })
      await expect(second).rejects.toThrow(/already drives the engines/)
    } finally {
      await core.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
