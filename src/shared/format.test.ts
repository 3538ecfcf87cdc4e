import { describe, expect, it } from 'vitest'
import { age, ago, bytes, duration, millis, when } from './format'

describe('sizes and times as a person reads them', () => {
  it('reads durations with their two largest units', () => {
    expect(duration(42)).toBe('42 s')
    expect(duration(5 * 60 + 59)).toBe('5 min')
    expect(duration(3 * 3600 + 12 * 60 + 30)).toBe('3 h 12 min')
    expect(duration(2 * 3600)).toBe('2 h')
    expect(duration(2 * 86400 + 4 * 3600 + 60)).toBe('2 d 4 h')
  })

  it('reads a past time as how long ago it was', () => {
    const now = Date.parse('2025-03-01T12:00:00Z')
    expect(ago('2025-03-01T11:59:58Z', now)).toBe('just now')
    expect(ago('2025-03-01T11:55:00Z', now)).toBe('5 min ago')
    expect(ago('2025-03-01T09:00:00Z', now)).toBe('3 h ago')
    expect(ago('2025-02-27T12:00:00Z', now)).toBe('2 d ago')
  })

  it('keeps short waits in milliseconds and seconds', () => {
    expect(millis(850)).toBe('850 ms')
    expect(millis(2400)).toBe('2.4 s')
    expect(millis(180_000)).toBe('3 min')
  })

  it('reads sizes in binary units, one decimal below 100', () => {
    expect(bytes(512)).toBe('512 B')
    expect(bytes(1536)).toBe('1.5 KiB')
    expect(bytes(42 * (1 << 20))).toBe('42.0 MiB')
    expect(bytes(150 * (1 << 30))).toBe('150 GiB')
    expect(bytes(null)).toBe('–')
  })

  it('reads an age for a narrow column, and a time with its stamp', () => {
    const now = Date.parse('2025-03-01T12:00:00Z')
    expect(age('2025-03-01T11:59:18Z', now)).toBe('42s')
    expect(age('2025-03-01T09:00:00Z', now)).toBe('3h')
    expect(age(undefined, now)).toBe('–')
    expect(when('2025-03-01T11:55:00Z', now)).toMatch(/^5 min ago \(2025-03-01 \d\d:55\)$/)
    expect(when('not a time', now)).toBe('not a time')
  })
})
