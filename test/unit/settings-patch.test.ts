import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Core } from '../../src/main/core/core'
import { SettingsPatch } from '../../src/shared/settings'
import { silentOwner } from '../../src/main/core/streams/stream-hub'

describe('a settings change', () => {
  it('names only the keys it changes, checked like the settings themselves', () => {
    expect(SettingsPatch.parse({ onSleep: 'marked' })).toEqual({ onSleep: 'marked' })
    expect(SettingsPatch.safeParse({ idleAfterSeconds: -1 }).success).toBe(false)
    expect(SettingsPatch.safeParse({ noSuchKey: 1 }).success).toBe(false)
  })

  it('through the contract, leaves every other setting as it was', async () => {
    const home = mkdtempSync(join(tmpdir(), 'berth-settings-'))
    const core = await Core.open({ home, host: 'daemon', localSocket: '/nonexistent.sock' })
    const owner = silentOwner('o')
    try {
      await core.call('settings.set', { patch: { idleAfterSeconds: 120 } }, { owner, door: 'control' })
      const r = await core.call('settings.set', { patch: { onSleep: 'nothing' } }, { owner, door: 'control' })
      expect(r).toMatchObject({ result: { onSleep: 'nothing', idleAfterSeconds: 120 } })
    } finally {
      await core.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
