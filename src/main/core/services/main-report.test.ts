import { describe, expect, it } from 'vitest'
import { exitSentence, lastLines, parseMainStatus } from './main-report'

describe('the main process report', () => {
  it('reads only well-formed lines of the status file', () => {
    const s = parseMainStatus('exit 1 1700000000 0\nexit 137 1700000009 2\nexit 99999 1 1\nexit -1 2 3\ngarbage\nstopped\n')
    expect(s.exits).toEqual([
      { code: 1, at: 1700000000, oomKills: 0 },
      { code: 137, at: 1700000009, oomKills: 2 },
    ])
    expect(s.stopped).toBe(true)
    expect(parseMainStatus('').exits).toEqual([])
  })

  it('keeps the last lines of output printable and short', () => {
    expect(lastLines('a\n\x1b[31mred\x1b[0m\n\nc\n', 2)).toEqual(['[31mred[0m', 'c'])
    expect(lastLines('x'.repeat(500))[0]).toHaveLength(200)
  })

  it('says what happened in one sentence', () => {
    const base = { command: ['httpd', '-f'], code: 137, memoryLimit: 64 * 2 ** 20, restart: 'no' as const, restarted: false }
    expect(exitSentence({ ...base, outOfMemory: true })).toBe(
      "the main process (httpd -f) was killed by the kernel for using more than the session's memory limit of 64 MiB (exit code 137); not restarted (--restart no).",
    )
    expect(exitSentence({ ...base, code: 3, outOfMemory: false, restart: 'on-failure', restarted: true })).toBe(
      'the main process (httpd -f) stopped by itself with exit code 3; restarted by the on-failure policy.',
    )
  })
})
