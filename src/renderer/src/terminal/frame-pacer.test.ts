import { afterEach, describe, expect, it, vi } from 'vitest'
import { FLOOD_BYTES, FramePacer, PACE_MS, type PacedTerminal } from './frame-pacer'

/** A terminal that parses a write when the test says so, and draws when the test says so. */
class FakeTerminal implements PacedTerminal {
  written: string[] = []
  modes = { synchronizedOutputMode: false }
  private parsed: Array<(() => void) | undefined> = []
  private renders = new Set<() => void>()
  write(data: string, callback?: () => void) {
    this.written.push(data)
    this.parsed.push(callback)
  }
  parseAll() {
    for (const cb of this.parsed.splice(0)) cb?.()
  }
  render() {
    for (const l of this.renders) l()
  }
  onRender(listener: () => void) {
    this.renders.add(listener)
    return { dispose: () => this.renders.delete(listener) }
  }
}

const HOLD = '\x1b[?2026h'
const RELEASE = '\x1b[?2026l'

afterEach(() => vi.useRealTimers())

describe('the frame pacer', () => {
  it('leaves output that is parsed as it comes (an echo) to draw at once', () => {
    const term = new FakeTerminal()
    const pacer = new FramePacer(term, () => 100)
    pacer.beforeWrite()
    expect(term.written).toEqual([])
  })

  it('holds the drawing in a flood and lets a frame through every pace, after the last one was drawn', () => {
    vi.useFakeTimers()
    const term = new FakeTerminal()
    let backlog = FLOOD_BYTES
    const pacer = new FramePacer(term, () => backlog)
    pacer.beforeWrite()
    expect(term.written).toEqual([HOLD])
    pacer.beforeWrite()
    expect(term.written).toEqual([HOLD])
    vi.advanceTimersByTime(PACE_MS)
    expect(term.written).toEqual([HOLD, RELEASE])
    // until the release is parsed and its frame drawn, output flows unheld
    pacer.beforeWrite()
    term.render()
    pacer.beforeWrite()
    expect(term.written).toEqual([HOLD, RELEASE])
    term.parseAll()
    term.render()
    pacer.beforeWrite()
    expect(term.written).toEqual([HOLD, RELEASE, HOLD])
    // the flood ends: the last hold is released by its timer
    backlog = 0
    vi.advanceTimersByTime(PACE_MS)
    expect(term.written).toEqual([HOLD, RELEASE, HOLD, RELEASE])
    pacer.dispose()
  })

  it('leaves the drawing to a program that synchronizes its own output', () => {
    const term = new FakeTerminal()
    term.modes.synchronizedOutputMode = true
    const pacer = new FramePacer(term, () => FLOOD_BYTES * 2)
    pacer.beforeWrite()
    expect(term.written).toEqual([])
  })
})
