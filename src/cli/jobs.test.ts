import { describe, expect, it } from 'vitest'
import { jobState, parseSince } from './commands/jobs'

describe('berth logs --since and berth jobs', () => {
  it('reads a span back from now, or an ISO time; refuses anything else', () => {
    const now = Date.parse('2026-12-07T02:00:00.000Z')
    expect(parseSince('90s', now)).toBe('2026-12-07T01:58:30.000Z')
    expect(parseSince('2h', now)).toBe('2026-12-07T00:00:00.000Z')
    expect(parseSince('2026-12-06T10:00:00Z', now)).toBe('2026-12-06T10:00:00.000Z')
    expect(() => parseSince('yesterday-ish', now)).toThrow(/not a time/)
  })

  it('shows an ended job with its exit code', () => {
    const j = { id: 'jx', command: 'make', startedAt: null, endedAt: null }
    expect(jobState({ ...j, state: 'exited', exitCode: 7 })).toBe('exited 7')
    expect(jobState({ ...j, state: 'lost', exitCode: null })).toBe('lost')
  })
})
