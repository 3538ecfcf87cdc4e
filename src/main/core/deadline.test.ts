import { describe, expect, it } from 'vitest'
import { within } from './deadline'

const after = <T>(ms: number, value: T) => new Promise<T>((r) => setTimeout(() => r(value), ms))

describe('waiting with a limit', () => {
  it('gives what the work settles to when it is in time, and the stand-in when it is not', async () => {
    expect(await within(after(5, 'done'), 200, () => 'late')).toBe('done')
    expect(await within(after(200, 'done'), 5, () => 'late')).toBe('late')
  })

  it('passes on a failure in time, and never hears one that comes after the deadline', async () => {
    await expect(within(Promise.reject(new Error('refused')), 200, () => 'late')).rejects.toThrow('refused')
    const failsLater = new Promise((_, reject) => setTimeout(() => reject(new Error('too late to matter')), 20))
    expect(await within(failsLater, 5, () => 'late')).toBe('late')
    await after(40, null) // an unhandled rejection here would fail the run
  })

  it('fails the call when the stand-in throws, and the process goes on', async () => {
    // (a pause past its deadline whose session never froze says so by throwing)
    await expect(within(after(200, 'done'), 5, () => { throw new Error('did not pause within its deadline') })).rejects.toThrow('did not pause within its deadline')
    await after(20, null)
  })
})
