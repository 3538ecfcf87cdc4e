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

  it("samples a dump's images folder while its client runs, and stops with the client, or at its deadline if the client hangs", () => {
    // the script's functions without its dispatch (main.sh), and a dump played by sleep and head
    const lib = SERVER_SCRIPT_PARTS.filter(([f]) => f !== 'main.sh')
      .map(([, t]) => t)
      .join('')
    const images = join(dir, 'images')
    mkdirSync(images)
    const driver = `${lib}
# the dump: its client runs while the images grow by 1 MiB every 100 ms
sleep 30 & client=$!
( i=0; while [ $i -lt 8 ]; do head -c 1048576 /dev/zero >> "${images}/pages-1.img"; sleep 0.1; i=$((i + 1)); done ) &
now_ms; sample_dump "$client" "${images}" $(( NOW + 60000 )) & sampler=$!
sleep 1.1; kill "$client"; now_ms; t=$NOW
wait "$sampler"; now_ms; echo "ended-with-client $(( NOW - t ))"
# a client that hangs: the sampler still ends by its deadline
sleep 30 & client=$!
now_ms; t=$NOW; sample_dump "$client" "${images}" $(( NOW + 600 )) > /dev/null & sampler=$!
wait "$sampler"; now_ms; echo "ended-at-deadline $(( NOW - t ))"
kill "$client"
`
    const r = spawnSync('dash', ['-c', driver], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: dir, BERTH_HOME_ID: 'unit' }, timeout: 20_000 })
    expect(r.status, r.stderr).toBe(0)
    const lines = r.stdout.trim().split('\n')
    const written = lines.filter((l) => l.startsWith('written ')).map((l) => parseJobLine(l))
    // each a line of the protocol, each larger than the one before, none beyond what was written
    expect(written.length, r.stdout).toBeGreaterThanOrEqual(2)
    const bytes = written.map((l) => (l?.kind === 'written' ? l.bytes : -1))
    expect(bytes.every((b, i) => b > 0 && (i === 0 || b > bytes[i - 1]!)), r.stdout).toBe(true)
    expect(Math.max(...bytes)).toBeLessThanOrEqual(8 * 1048576 + 65536)
    const after = (what: string) => Number(lines.find((l) => l.startsWith(what))?.split(' ')[1])
    // within a sample's interval (250 ms) and one du of the client's end; at its deadline when the client hangs
    expect(after('ended-with-client')).toBeLessThan(1000)
    expect(after('ended-at-deadline')).toBeLessThan(2000)
  }, 60_000)

  it("samples Docker's own dump from the folder its runc names, then Docker's copy, and stops with the client", () => {
    const lib = SERVER_SCRIPT_PARTS.filter(([f]) => f !== 'main.sh')
      .map(([, t]) => t)
      .join('')
    const root = join(dir, 'docker-root')
    const cid = 'c'.repeat(64)
    const images = join(dir, 'ctd-checkpoint123')
    const final = join(root, 'containers', cid, 'checkpoints', 'snap.pause_v1')
    mkdirSync(images)
    mkdirSync(final, { recursive: true })
    const driver = `${lib}
# the container's shim: its init (a sleep) and the runc that checkpoints it, named as containerd names it
( sleep 9 & echo $! > "${dir}/init.pid"; sh -c 'sleep 9; :' runc --root /run/x checkpoint --image-path "${images}" --work-path /run/w "${cid}" & echo $! > "${dir}/runc.pid"; wait ) > /dev/null 2>&1 & shim=$!
# a runc of another container beside it, whose folder must not be read
( sh -c 'sleep 9; :' runc checkpoint --image-path /etc "${'d'.repeat(64)}" & echo $! > "${dir}/other.pid"; wait ) > /dev/null 2>&1 & other=$!
sleep 0.3; read -r init < "${dir}/init.pid"
sleep 9 > /dev/null 2>&1 & client=$!
# CRIU writes 6 MiB into runc's folder, then Docker copies 7 MiB into the checkpoint
( i=0; while [ $i -lt 6 ]; do head -c 1048576 /dev/zero >> "${images}/pages-1.img"; sleep 0.1; i=$((i + 1)); done
  i=0; while [ $i -lt 7 ]; do head -c 1048576 /dev/zero >> "${final}/pages-1.img"; sleep 0.1; i=$((i + 1)); done ) &
now_ms; cmd_root_sample_docker_dump x "${cid}" "${root}" snap.pause_v1 "$init" "$client" $(( NOW + 60000 )) & sampler=$!
sleep 2.2; kill "$client"; now_ms; t=$NOW
wait "$sampler"; now_ms; echo "ended-with-client $(( NOW - t ))"
# bad arguments are refused
cmd_root_sample_docker_dump x "${cid}" "${root}" ../x 1 1 1; echo "refused $?"
read -r runc < "${dir}/runc.pid"; read -r o < "${dir}/other.pid"
kill "$init" "$runc" "$o" "$shim" "$other" 2>/dev/null
`
    const r = spawnSync('dash', ['-c', driver], { encoding: 'utf8', env: { PATH: process.env.PATH!, HOME: dir, BERTH_HOME_ID: 'unit' }, timeout: 20_000 })
    const lines = r.stdout.trim().split('\n')
    const bytes = lines.filter((l) => l.startsWith('written ')).map((l) => parseJobLine(l)).map((l) => (l?.kind === 'written' ? l.bytes : -1))
    // figures from runc's folder first, then Docker's copy beyond them, each larger than the last
    expect(bytes.length, r.stdout + r.stderr).toBeGreaterThanOrEqual(3)
    expect(bytes.every((b, i) => b > 0 && (i === 0 || b > bytes[i - 1]!)), r.stdout).toBe(true)
    expect(bytes.some((b) => b <= 6 * 1048576), r.stdout).toBe(true)
    expect(Math.max(...bytes), r.stdout).toBeGreaterThan(6 * 1048576)
    expect(Math.max(...bytes)).toBeLessThanOrEqual(7 * 1048576 + 65536)
    expect(Number(lines.find((l) => l.startsWith('ended-with-client'))?.split(' ')[1])).toBeLessThan(1000)
    expect(lines).toContain('refused 2')
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
