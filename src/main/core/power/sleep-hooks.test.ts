import { describe, expect, it } from 'vitest'
import { darwinLines, HOOK_MARK, linuxHook, withHookLine } from './sleep-hooks'

const target = { platform: 'linux' as const, berth: ['/usr/bin/node', '/opt/berth/berth.cjs'], home: "/home/a b/.config/Berth", user: 'alice', uid: 1000 }

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
