import { describe, expect, it, vi } from 'vitest'
import { forTerminal, printJson, printTable } from './output'

describe('text printed to a terminal', () => {
  it('shows escape sequences instead of obeying them', () => {
    // retitle the window, clear the screen, an OSC 52 clipboard write, a C1 CSI, a bell
    const hostile = 'calm\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZWNobyBoaQ==\x07\x9b31m\x07otter'
    expect(forTerminal(hostile)).toBe('calm\\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;ZWNobyBoaQ==\\x07\\x9b31m\\x07otter')
    expect(forTerminal(hostile)).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
  })

  it('keeps newlines and tabs in messages, and shows them in one-line values', () => {
    expect(forTerminal('line one\n\tline two\n')).toBe('line one\n\tline two\n')
    expect(forTerminal('a\nb\r\x00', { oneLine: true })).toBe('a\\nb\\x0d\\x00')
    expect(forTerminal('over\rwrite')).toBe('over\\x0dwrite')
  })

  it('shows the characters that reorder a line (Trojan Source) and DEL, and leaves the rest of Unicode alone', () => {
    expect(forTerminal('admin\u202e\u2066txt.exe\x7f')).toBe('admin\\u202e\\u2066txt.exe\\x7f')
    expect(forTerminal('café ☕ 日本 ünïcödé')).toBe('café ☕ 日本 ünïcödé')
  })

  it('keeps --json output valid and equal, with the characters JSON leaves raw written as escapes', () => {
    const out: string[] = []
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => out.push(String(c)) > 0)
    try {
      printJson({ name: 'x\x1b[31m\x9b1m\u202ey' })
      printTable([['a\x1b]0;t\x07', 'b\nc']], ['NAME', 'NOTE'])
    } finally {
      spy.mockRestore()
    }
    expect(out[0]).toBe('{\n  "name": "x\\u001b[31m\\u009b1m\\u202ey"\n}\n')
    expect(JSON.parse(out[0]!)).toEqual({ name: 'x\x1b[31m\x9b1m\u202ey' })
    const cell = 'a\\x1b]0;t\\x07'
    expect(out.slice(1).join('')).toBe(`${'NAME'.padEnd(cell.length)}  NOTE\n${cell}  b\\nc\n`)
  })
})
