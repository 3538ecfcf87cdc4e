import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { calls, type CallName } from '../../src/shared/contract'
import { eventFrame, STREAM_DATA_FRAME_START } from '../../src/shared/wire'
import { Core } from '../../src/main/core/core'
import { installModules } from '../../src/main/core/modules'

describe('the contract', () => {
  it("writes stream data frames the way the browser's socket worker spots them", () => {
    const frame = JSON.stringify(eventFrame('stream.data', { streamId: 'st1', fd: 1, data: 'aGk=' }))
    expect(frame.startsWith(STREAM_DATA_FRAME_START)).toBe(true)
  })

  it('has a handler for every call once every module is installed', async () => {
    const home = mkdtempSync(join(tmpdir(), 'berth-contract-'))
    const core = await Core.open({ home, host: 'daemon', localSocket: '/nonexistent.sock' })
    try {
      installModules(core)
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
      const owner = { id: 'o', send: () => undefined }
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
