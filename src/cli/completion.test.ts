import { describe, expect, it } from 'vitest'
import { commands } from './commands'
import { complete, FILES, type NameSource } from './completion'

const names: NameSource = async (kind) =>
  ({ session: ['calm-otter', 'brave-fox'], server: ['local', 'office'], snapshot: ['base:v1', 'base:v2'], secret: ['npm-token'] })[kind]

const c = (...words: string[]) => complete(commands, words, names)

describe('shell completion', () => {
  it('completes verbs, then the verbs under a first word', async () => {
    expect(await c('')).toEqual(expect.arrayContaining(['session', 'server', 'pause', 'snapshot', 'help', 'completion']))
    expect(await c('se')).toEqual(expect.arrayContaining(['session', 'server', 'settings', 'serve', 'secret']))
    expect(await c('session', '')).toEqual(['create', 'ls', 'show', 'set', 'events', 'stale'])
    expect(await c('help', 'ses')).toEqual(['session'])
  })

  it("completes a verb's flags, and the values of a flag from what it takes", async () => {
    expect(await c('pause', '--')).toEqual(expect.arrayContaining(['--all', '--wait', '--no-memory', '--json', '--help']))
    expect(await c('session', 'ls', '--')).toContain('--quiet')
    expect(await c('session', 'create', '--server', '')).toEqual(['local', 'office'])
    expect(await c('session', 'ls', '--state', 'pa')).toEqual(['pausing', 'paused'])
    expect(await c('session', 'create', '--workspace', '')).toEqual([FILES])
  })

  it('completes arguments with names from the core', async () => {
    expect(await c('pause', 'ca')).toEqual(['calm-otter'])
    expect(await c('resume', 'brave-fox', '--on', '')).toEqual(['local', 'office'])
    expect(await c('server', 'test', '')).toEqual(['local', 'office'])
    expect(await c('snapshot', 'show', 'base:')).toEqual(['base:v1', 'base:v2'])
    expect(await c('server', 'checkpoint', 'office', '')).toEqual(['auto', 'fast', 'docker', 'off'])
    expect(await c('settings', 'set', 'idle')).toEqual(['idleAfterSeconds'])
    expect(await c('exec', 'calm-otter', '--', 'ls', '')).toEqual([FILES])
  })
})

describe('names from the core', () => {
  it('are none, quickly, when the core accepts and never answers', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const net = await import('node:net')
    const { coreNames } = await import('./completion')
    const home = mkdtempSync(join(tmpdir(), 'complete-'))
    const silent = net.createServer(() => undefined)
    await new Promise<void>((r) => silent.listen(join(home, 'control.sock'), r))
    try {
      const t0 = Date.now()
      expect(await coreNames(home)('session')).toEqual([])
      expect(Date.now() - t0).toBeLessThan(1500)
      // and with no core at all
      rmSync(join(home, 'control.sock'), { force: true })
      expect(await coreNames(join(home, 'nowhere'))('server')).toEqual([])
    } finally {
      silent.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
