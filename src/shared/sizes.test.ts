import { describe, expect, it } from 'vitest'
import { formatSize, parseSize } from './sizes'

describe('sizes', () => {
  it('reads sizes as Docker does (binary units)', () => {
    expect(parseSize('64m')).toBe(64 * 2 ** 20)
    expect(parseSize('64MiB')).toBe(64 * 2 ** 20)
    expect(parseSize('1.5g')).toBe(1.5 * 2 ** 30)
    expect(parseSize('4096')).toBe(4096)
    expect(parseSize('2 GB')).toBe(2 * 2 ** 30)
    expect(parseSize('lots')).toBeUndefined()
    expect(parseSize('-1m')).toBeUndefined()
    expect(parseSize('9'.repeat(30))).toBeUndefined()
  })

  it('prints them back', () => {
    expect(formatSize(64 * 2 ** 20)).toBe('64 MiB')
    expect(formatSize(1536)).toBe('1.5 KiB')
    expect(formatSize(100)).toBe('100 B')
  })
})
