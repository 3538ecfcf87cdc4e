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
