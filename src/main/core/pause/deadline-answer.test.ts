import { describe, expect, it } from 'vitest'
import { atDeadline } from './deadline-answer'

describe('the answer of a pause at its deadline', () => {
  it('is paused once the store says so', () => {
    expect(atDeadline({ state: 'paused' }, { detail: {} })).toBe('paused')
  })

  it("is frozen when its server's batch froze it and its job has not reported yet", () => {
    // (bench/lid-close at N = 8 on a loaded machine: frozen by the batch at 2.9 s, its job's first
    // line at 5.4 s, past the 4.5 s deadline; it was answered "keeps running there")
    expect(atDeadline({ state: 'pausing' }, { detail: { batch: { frozen: true }, frozenMs: 2944 } })).toBe('frozen-by-batch')
  })

  it('is not paused when the batch could not freeze it, or it never got that far', () => {
    expect(atDeadline({ state: 'pausing' }, { detail: { batch: { frozen: false, reason: 'late' } } })).toBe('not-paused')
    expect(atDeadline({ state: 'pausing' }, { detail: {} })).toBe('not-paused')
    expect(atDeadline({ state: 'running' }, { detail: { batch: { frozen: true }, frozenMs: 10 } })).toBe('not-paused')
    expect(atDeadline({ state: 'pausing' }, undefined)).toBe('not-paused')
  })
})
