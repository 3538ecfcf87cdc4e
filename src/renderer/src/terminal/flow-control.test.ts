import { afterEach, describe, expect, it, vi } from 'vitest'
import { AckBatcher } from './flow-control'

afterEach(() => vi.useRealTimers())

describe('acknowledging rendered output', () => {
  it('acknowledges in batches, and the remainder after a short delay', () => {
    vi.useFakeTimers()
    const sent: number[] = []
    const acks = new AckBatcher((n) => sent.push(n), 1000, 25)
    acks.consumed(400)
    acks.consumed(400)
    expect(sent).toEqual([])
    acks.consumed(400)
    expect(sent).toEqual([1200])
    acks.consumed(10)
    vi.advanceTimersByTime(24)
    expect(sent).toEqual([1200])
    vi.advanceTimersByTime(1)
    expect(sent).toEqual([1200, 10])
  })

  it('stops acknowledging once its stream is gone', () => {
    vi.useFakeTimers()
    const sent: number[] = []
    const acks = new AckBatcher((n) => sent.push(n), 1000, 25)
    acks.consumed(10)
    acks.stop()
    vi.advanceTimersByTime(100)
    acks.consumed(5000)
    expect(sent).toEqual([])
  })
})
