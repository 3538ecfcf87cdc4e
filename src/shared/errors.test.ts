import { describe, expect, it } from 'vitest'
import { BerthError, reasonOf } from './errors'

describe('reasonOf', () => {
  it("keeps a BerthError's sentence and trims anything else to its first line", () => {
    expect(reasonOf(new BerthError('conflict', 'a live session is already named web'))).toBe('a live session is already named web')
    expect(reasonOf(new Error('\n  (HTTP code 500) server error   - no space left\nstack noise'))).toBe('(HTTP code 500) server error - no space left')
    expect(reasonOf('a thrown string')).toBe('a thrown string')
  })
})
