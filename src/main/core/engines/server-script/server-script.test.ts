// The server script as the servers run it: real shell, checked by shellcheck, and run under dash
// (the /bin/sh of Debian and Ubuntu servers) through its job protocol.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { emptyOutcome, parseJobLine, takeLine } from './job-protocol'
import { SERVER_SCRIPT, SERVER_SCRIPT_PARTS } from './server-script'

const dir = mkdtempSync(join(tmpdir(), 'berth-server-script-'))
const script = join(dir, 'berth-server.sh')
writeFileSync(script, SERVER_SCRIPT)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('dash', [script, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: dir, BERTH_HOME_ID: 'unit', ...env }, timeout: 20_000 })

describe('the server script', () => {
  it('is built from the shell files in order, each checked by shellcheck', () => {
    expect(SERVER_SCRIPT_PARTS[0]![0]).toBe('common.sh')
    expect(SERVER_SCRIPT.startsWith('#!/bin/sh\n')).toBe(true)
    for (const [file, text] of SERVER_SCRIPT_PARTS) expect(readFileSync(join(__dirname, 'sh', file), 'utf8')).toBe(text)
    // the installed whole, as one program (the parts share their functions)
    const r = spawnSync('shellcheck', ['-s', 'sh', '-S', 'warning', '-f', 'gcc', script], { encoding: 'utf8' })
    if (r.error) throw new Error(`shellcheck is not installed (scripts/testhost.sh installs it): ${r.error.message}`)
    // report each finding by its own file and line
    const starts: Array<[string, number]> = []
    let line = 1
    for (const [file, text] of SERVER_SCRIPT_PARTS) {
      starts.push([file, line])
      line += text.split('\n').length - 1
    }
    const where = (n: number) => {
      const [file, start] = [...starts].reverse().find(([, s]) => s <= n)!
      return `${file}:${n - start + 1}`
    }
    const findings = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.replace(/^[^:]+:(\d+):/, (_m, n: string) => `${where(Number(n))}:`))
    expect(findings).toEqual([])
    expect(r.status).toBe(0)
    // shellcheck takes seconds of its own on a loaded 2-core machine
  }, 120_000)

  it('parses under dash', () => {
    execFileSync('dash', ['-n', script])
  }, 60_000)

  it('runs a job under dash: detached, followed to its end with its exit code, then forgotten', () => {
    const started = run(['start', 'unit-job-1', 'probe'])
    expect(started.status).toBe(0)
    const o = emptyOutcome()
    let ended = false
    for (const l of started.stdout.split('\n').filter(Boolean)) {
      const parsed = parseJobLine(l)
      expect(parsed, `a line of the protocol: ${l}`).toBeDefined()
      if (takeLine(o, parsed!)) ended = true
    }
    expect(ended).toBe(true)
    expect(o.rc).toBe(0)
    // following again from the start repeats the same end
    expect(run(['follow', 'unit-job-1', '0']).stdout.trim().split('\n').pop()).toBe('rc 0')
    expect(run(['follow', 'no-such-job']).stdout.trim()).toBe('rc missing')
    expect(run(['forget', 'unit-job-1']).status).toBe(0)
    expect(run(['follow', 'unit-job-1']).stdout.trim()).toBe('rc missing')
  }, 60_000)

  it('ends a job that outlives its limit, with everything it started, and says so', () => {
    // a job that follows another that never ends (its owner, this test, lives on)
    const jobs = join(dir, '.local/state/berth/unit/jobs')
    mkdirSync(jobs, { recursive: true })
    writeFileSync(join(jobs, 'endless.status'), 'stage begin 0\n')
    writeFileSync(join(jobs, 'endless.pid'), `${process.pid}\n`)
    writeFileSync(join(jobs, 'endless.boot'), readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'))
    const t0 = Date.now()
    const r = run(['start', 'unit-job-2', '--limit', '1', 'follow', 'endless'])
    const lines = r.stdout.trim().split('\n')
    expect(lines.pop()).toMatch(/^rc \d+$/)
    expect(lines).toContain('error the job did not finish within its limit of 1 s; Berth ended it')
    expect(Date.now() - t0).toBeLessThan(8000)
  }, 60_000)

  it('refuses job names and arguments that could reach a path unchecked', () => {
    expect(run(['detach', '../escape', 'probe']).stdout).toContain('error not a job name')
    expect(run(['start', 'unit-job-3', '--limit', 'soon', 'probe']).stdout).toContain('error not a number of seconds')
    expect(run(['xfer-dir', '../../etc']).stdout).toContain('error not a transfer key')
    expect(run(['part-read', '/etc/passwd', '0']).stdout).toContain('error not a transfer file')
    expect(run(['image-send', '/etc', 'passwd']).stdout).toContain('error not a carry folder')
    expect(run(['root-remove-checkpoint', 'x'.repeat(64), '/var/lib/docker', '../../etc']).status).toBe(2)
    expect(run(['root-xfer-untar-file', '-', 'diff', 'relative/path']).status).toBe(2)
    expect(run(['root-xfer-untar-file', '/nonexistent.tar', 'diff', '/tmp/somewhere']).status).toBe(2)
  }, 60_000)
})
