import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { lidCloseDeadlineMs, logindConfigured, neededWindowSeconds, parseTimeSpan, sleepWindow } from './sleep-window'

const roots: string[] = []
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true })
})
function root(files: Record<string, string>): string {
  const r = mkdtempSync(join(tmpdir(), 'berth-logind-'))
  roots.push(r)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(r, path, '..'), { recursive: true })
    writeFileSync(join(r, path), text)
  }
  return r
}

describe("the OS's sleep window", () => {
  it('reads systemd time spans', () => {
    expect(parseTimeSpan('5')).toBe(5)
    expect(parseTimeSpan('5s')).toBe(5)
    expect(parseTimeSpan('1min 30s')).toBe(90)
    expect(parseTimeSpan('500ms')).toBe(0.5)
    expect(parseTimeSpan('2 h')).toBe(7200)
    expect(parseTimeSpan('soon')).toBeNull()
    expect(parseTimeSpan('')).toBeNull()
  })

  it('reads InhibitDelayMaxSec as logind does: the main file, then drop-ins by name, the last one winning', () => {
    const r = root({
      'etc/systemd/logind.conf': '[Login]\n#InhibitDelayMaxSec=5\nInhibitDelayMaxSec=7\n',
      'usr/lib/systemd/logind.conf.d/10-vendor.conf': '[Login]\nInhibitDelayMaxSec=9\n',
      'etc/systemd/logind.conf.d/50-berth.conf': '# berth\n[Login]\nInhibitDelayMaxSec=12s\n',
      'etc/systemd/logind.conf.d/60-other.conf': '[Other]\nInhibitDelayMaxSec=99\n',
    })
    expect(logindConfigured(r)).toEqual({ seconds: 12, file: join(r, 'etc/systemd/logind.conf.d/50-berth.conf') })
    // the same name in /etc replaces the vendor's
    const r2 = root({ 'usr/lib/systemd/logind.conf.d/10-vendor.conf': '[Login]\nInhibitDelayMaxSec=9\n', 'etc/systemd/logind.conf.d/10-vendor.conf': '[Login]\n' })
    expect(logindConfigured(r2)).toBeNull()
  })

  it("gives logind's default, says macOS has no window, and derives the lid-close deadline", async () => {
    expect(await sleepWindow('linux', root({}))).toMatchObject({ seconds: 5, source: 'default' })
    expect(await sleepWindow('linux', root({ 'etc/systemd/logind.conf': '[Login]\nInhibitDelayMaxSec=20\n' }))).toMatchObject({ seconds: 20, source: 'logind.conf' })
    const mac = await sleepWindow('darwin')
    expect(mac).toMatchObject({ seconds: null, source: 'none' })
    expect(mac.note).toMatch(/sleepwatcher/)
    expect(lidCloseDeadlineMs(null, { seconds: 5, source: 'default', note: '' })).toBe(4500)
    expect(lidCloseDeadlineMs(30, { seconds: 5, source: 'default', note: '' })).toBe(30_000)
    expect(lidCloseDeadlineMs(null, mac)).toBe(20_000)
    expect(neededWindowSeconds(3000)).toBe(6)
    expect(neededWindowSeconds(22_000)).toBeGreaterThanOrEqual(28)
  })
})
