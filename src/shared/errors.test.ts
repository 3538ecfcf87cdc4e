import { describe, expect, it } from 'vitest'
import { BerthError, ERROR_CODES, exitCodeFor, reasonOf } from './errors'

describe('reasonOf', () => {
  it("keeps a BerthError's sentence and trims anything else to its first line", () => {
    expect(reasonOf(new BerthError('conflict', 'a live session is already named web'))).toBe('a live session is already named web')
    expect(reasonOf(new Error('\n  (HTTP code 500) server error   - no space left\nstack noise'))).toBe('(HTTP code 500) server error - no space left')
    expect(reasonOf('a thrown string')).toBe('a thrown string')
  })
})

describe('exit codes', () => {
  it('gives every error code its exit code: usage 2, not found 3, a server 4, any other failure 1', () => {
    const codes = Object.fromEntries(ERROR_CODES.map((c) => [c, exitCodeFor(c)]))
    expect(codes).toEqual({
      usage: 2,
      not_found: 3,
      unreachable: 4,
      host_key_mismatch: 4,
      host_key_unconfirmed: 4,
      conflict: 1,
      refused: 1,
      busy: 1,
      engine: 1,
      checkpoint: 1,
      transfer: 1,
      git: 1,
      timeout: 1,
      unavailable: 1,
      damaged: 1,
      internal: 1,
    })
  })
})
