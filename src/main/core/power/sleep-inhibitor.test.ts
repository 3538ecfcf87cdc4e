import { describe, expect, it } from 'vitest'
import { SleepInhibitor } from './sleep-inhibitor'

describe('the logind delay inhibitor', () => {
  it('is skipped quietly where there is no logind or no Linux', async () => {
    expect(await new SleepInhibitor({ platform: 'linux', logindPresent: () => false }).take()).toBe('none: logind is not running on this machine')
    expect(await new SleepInhibitor({ platform: 'darwin', logindPresent: () => true }).take()).toBe('none: darwin has no logind')
    const i = new SleepInhibitor({ platform: 'linux', logindPresent: () => false })
    i.release()
    expect(i.held).toBe(false)
  })
})
