import { execFileSync, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { limitsConfig, limitsWithDefaults, mainOf, remoteOf, shapeOf, shapeOptions, supervisorEntrypoint } from './session-shape'

const NONE = { sessionCpus: null, sessionMemory: null, sessionPids: null }

describe("a session's shape", () => {
  it("keeps the image's own main process, but not a base image's bare shell", () => {
    expect(mainOf({ Cmd: ['/bin/bash'] }, 'on-failure')).toBeNull()
    expect(mainOf({ Cmd: ['sh'] }, 'on-failure')).toBeNull()
    expect(mainOf({}, 'on-failure')).toBeNull()
    expect(mainOf({ Entrypoint: ['docker-entrypoint.sh'], Cmd: ['postgres'], WorkingDir: '/data' }, 'always')).toEqual({
      argv: ['docker-entrypoint.sh', 'postgres'],
      workdir: '/data',
      restart: 'always',
    })
    expect(mainOf({ Cmd: ['sh', '-c', 'exec httpd -f'] }, 'no')?.argv).toEqual(['sh', '-c', 'exec httpd -f'])
  })

  it('reads what a session keeps, anything unreadable counting as absent', () => {
    expect(shapeOf({ main: { argv: [] }, limits: { cpus: -1 } })).toEqual({ main: null, limits: {} })
    expect(shapeOf({ limits: { memoryBytes: 64 * 2 ** 20 } }).limits).toEqual({ memoryBytes: 64 * 2 ** 20 })
    // a devcontainer's part: its user and environment reach exec, terminals and ssh; forks carry it
    const dev = { user: 'dev', remoteEnv: { EDITOR: 'vi' }, ports: [8080], postStart: [{ argv: ['make', 'serve'] }], volumes: [] }
    expect(shapeOf({ limits: {}, dev }).dev).toEqual(dev)
    expect(remoteOf({ options: { dev } })).toEqual({ user: 'dev', env: { EDITOR: 'vi' } })
    expect(remoteOf({ options: { dev: { user: 7 } } })).toEqual({ env: {} })
    expect(shapeOptions(shapeOf({ limits: {}, dev }))).toEqual({ limits: {}, dev })
  })

  it('gives the engine its limits, memory without swap', () => {
    expect(limitsConfig({ cpus: 0.5, memoryBytes: 2 ** 26, pids: 100 })).toEqual({ NanoCpus: 5e8, Memory: 2 ** 26, MemorySwap: 2 ** 26, PidsLimit: 100 })
    expect(limitsConfig({})).toEqual({})
  })

  it("takes the settings' defaults, each replaced by the create's own", () => {
    expect(limitsWithDefaults(NONE, undefined)).toEqual({})
    expect(limitsWithDefaults({ sessionCpus: 2, sessionMemory: '1g', sessionPids: null }, { cpus: 0.5 })).toEqual({ cpus: 0.5, memoryBytes: 2 ** 30 })
  })

  it('hands the supervisor its policy, folder and command as arguments, never inside its script', () => {
    const e = supervisorEntrypoint({ argv: ['httpd', '-f', '$(reboot)'], workdir: '/www', restart: 'on-failure' })
    expect(e.slice(0, 2)).toEqual(['/bin/sh', '-c'])
    expect(e[2]).not.toContain('httpd')
    expect(e.slice(3)).toEqual(['berth-main', 'on-failure', '/www', '--', 'httpd', '-f', '$(reboot)'])
    execFileSync('dash', ['-n', '-c', e[2]!])
  })

  it('is shell that shellcheck passes', () => {
    const r = spawnSync('shellcheck', ['-s', 'sh', '-S', 'warning', '-f', 'gcc', join(__dirname, 'supervise.sh')], { encoding: 'utf8' })
    if (r.error) throw new Error(`shellcheck is not installed (scripts/testhost.sh installs it): ${r.error.message}`)
    expect(r.stdout).toBe('')
  })
})
