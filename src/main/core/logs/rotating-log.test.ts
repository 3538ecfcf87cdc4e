import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { RotatingLog } from './rotating-log'

const dir = mkdtempSync(join(tmpdir(), 'logs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('log files', () => {
  it('keeps the last five files of at most the limit each, newest lines in NAME.log', () => {
    const log = new RotatingLog(dir, 'daemon', 1000, 5)
    for (let i = 0; i < 200; i++) log.write(`line ${String(i).padStart(3, '0')} ${'x'.repeat(40)}\n`)
    expect(readdirSync(dir).sort()).toEqual(['daemon.1.log', 'daemon.2.log', 'daemon.3.log', 'daemon.4.log', 'daemon.log'])
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(1000)
    expect(readFileSync(join(dir, 'daemon.log'), 'utf8')).toMatch(/line 199 x+\n$/)
    const oldest = readFileSync(join(dir, 'daemon.4.log'), 'utf8')
    const newestOfOldest = Number(/line (\d+)/.exec(oldest.trim().split('\n').pop()!)![1])
    expect(newestOfOldest).toBeLessThan(199)
    // a new process appends to the same file and counts its size
    const again = new RotatingLog(dir, 'daemon', 1000, 5)
    again.write('restarted\n')
    expect(readFileSync(join(dir, 'daemon.log'), 'utf8')).toMatch(/restarted\n$/)
  })

  it('never throws when the folder is gone', () => {
    const gone = join(dir, 'gone')
    const log = new RotatingLog(gone, 'app')
    rmSync(gone, { recursive: true })
    expect(() => log.write('lost\n')).not.toThrow()
  })
})
