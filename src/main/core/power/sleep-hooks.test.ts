import { describe, expect, it } from 'vitest'
import { darwinLines, hookFiles, HOOK_MARK, installedHook, linuxHook, withHookLine, writeHookFiles } from './sleep-hooks'

const target = { platform: 'linux' as const, berth: ['/usr/bin/node', '/opt/berth/berth.cjs'], home: '/home/a b/.config/Berth', user: 'alice', uid: 1000 }

describe('sleep hooks', () => {
  it('the Linux hook runs berth as its user before and after sleep, and never blocks sleep', () => {
    const text = linuxHook(target)
    expect(text).toContain('pre) verb=suspend')
    expect(text).toContain('post) verb=resume')
    expect(text).toContain("runuser -u 'alice' -- env BERTH_HOME='/home/a b/.config/Berth' '/usr/bin/node' '/opt/berth/berth.cjs' power \"$verb\"")
    expect(text).toContain('|| true\nexit 0\n')
    expect(linuxHook({ ...target, uid: 0, user: 'root' })).not.toContain('runuser')
  })

  it('keeps the rest of a sleepwatcher script and replaces only its own line', () => {
    const lines = darwinLines({ ...target, platform: 'darwin' })
    expect(lines.sleep).toContain('power suspend')
    expect(lines.wakeup).toContain('power resume')
    const once = withHookLine('#!/bin/sh\necho mine\n', lines.sleep)
    const twice = withHookLine(once, lines.sleep)
    expect(twice).toBe(once)
    expect(twice.split('\n').filter((l) => l.includes(HOOK_MARK))).toHaveLength(1)
    expect(twice).toContain('echo mine')
    expect(withHookLine(undefined, lines.wakeup).startsWith('#!/bin/sh\n')).toBe(true)
  })
})

describe('the installed hook, as berth doctor reads it', () => {
  it('finds the hook file and the program it runs, quoted as the hook writes it', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const dir = mkdtempSync(join(tmpdir(), 'hook-'))
    try {
      expect(installedHook('linux', [dir])).toBeNull()
      const files = hookFiles({ platform: 'linux', dir, berth: ["/opt/it's Berth/resources/bin/berth"], home: '/home/ada/.config/Berth', user: 'ada', uid: 1000 })
      writeHookFiles(files)
      expect(installedHook('linux', [dir])).toEqual({ path: join(dir, 'berth'), program: "/opt/it's Berth/resources/bin/berth" })
      const mac = hookFiles({ platform: 'darwin', dir, berth: ['/usr/bin/node', '/x/berth.cjs'], home: '/h', user: 'ada', uid: 501 })
      writeHookFiles(mac)
      expect(installedHook('darwin', [dir])).toEqual({ path: join(dir, '.sleep'), program: '/usr/bin/node' })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
