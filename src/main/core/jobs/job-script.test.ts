// The job supervisor as a session runs it: real shell under dash, checked by shellcheck; a job's
// output lands in its bounded log (rotated once), its exit code is kept, kill signals its group.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import JOB_SCRIPT from './job.sh'
import { parseJobLine, parseLogRead } from './job-text'

const dir = mkdtempSync(join(tmpdir(), 'berth-jobs-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const job = (args: string[], logBytes = 100_000) =>
  spawnSync('dash', ['-c', JOB_SCRIPT, 'berth-job', ...args], {
    env: { PATH: process.env.PATH!, BERTH_JOBS_DIR: join(dir, 'jobs'), BERTH_JOB_LOG_BYTES: String(logBytes) },
    timeout: 20_000,
  })
const text = (args: string[]) => job(args).stdout.toString('utf8')
const list = () => text(['list']).split('\n').map(parseJobLine).filter((j) => j !== null)
async function until<T>(f: () => T | undefined, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = f()
    if (v !== undefined) return v
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('the job supervisor', { timeout: 60_000 }, () => {
  it('passes shellcheck', () => {
    const r = spawnSync('shellcheck', ['-s', 'sh', '-S', 'warning', '-f', 'gcc', join(__dirname, 'job.sh')], { encoding: 'utf8' })
    if (r.error) throw new Error(`shellcheck is not installed: ${r.error.message}`)
    expect(r.stdout).toBe('')
  })

  it('runs a command detached, logs its output with times, keeps its exit code', async () => {
    expect(text(['start', 'jone', 'count', 'sh', '-c', 'echo "a b"; echo two >&2; exit 7'])).toBe('started jone\n')
    const done = await until(() => list().find((j) => j.id === 'jone' && j.state === 'exited'), 'the job to end')
    expect(done).toMatchObject({ command: 'count', exitCode: 7 })
    expect(done.startedAt).toMatch(/^\d{4}-/)
    const read = parseLogRead(job(['read', 'jone', '0', '0', '1000']).stdout, { gen: 0, offset: 0 })
    expect(read.lines.map((l) => l.text)).toEqual(['a b', 'two'])
    expect(read.lines[0]!.at).toMatch(/^\d{4}-/)
    expect(read).toMatchObject({ state: 'exited', more: false, skipped: false })
    const again = parseLogRead(job(['read', 'jone', String(read.cursor.gen), String(read.cursor.offset), '1000']).stdout, read.cursor)
    expect(again.lines).toEqual([])
  })

  it('bounds the log: it rotates once, and a reader carries on through the rotation', async () => {
    job(['start', 'jrot', 'many', 'sh', '-c', 'i=0; while [ $i -lt 40 ]; do echo "line $i"; i=$((i+1)); done'], 300)
    await until(() => list().find((j) => j.id === 'jrot' && j.state === 'exited'), 'the job to end')
    expect(Number(readFileSync(join(dir, 'jobs', 'jrot', 'log.gen'), 'utf8'))).toBeGreaterThanOrEqual(2)
    // a reader from the start missed what rotated away twice, and is told so
    const r = parseLogRead(job(['read', 'jrot', '0', '0', '100000']).stdout, { gen: 0, offset: 0 })
    expect(r.skipped).toBe(true)
    const last = r.lines.map((l) => l.text)
    expect(last[last.length - 1]).toBe('line 39')
  })

  it('kill signals the job\'s processes; the code says how it ended', async () => {
    job(['start', 'jkill', 'sleeper', 'sh', '-c', 'trap "exit 3" TERM; echo up; while :; do sleep 0.1; done'])
    await until(() => (parseLogRead(job(['read', 'jkill', '0', '0', '100']).stdout, { gen: 0, offset: 0 }).lines.length ? true : undefined), 'the job to run')
    expect(text(['kill', 'jkill', 'TERM'])).toBe('signalled 1\n')
    const done = await until(() => list().find((j) => j.id === 'jkill' && j.state === 'exited'), 'the job to end')
    expect(done.exitCode).toBe(3)
    expect(text(['kill', 'jkill', 'TERM'])).toBe('state exited\n')
    expect(job(['kill', 'jkill', 'BOGUS']).status).toBe(2)
    expect(job(['read', '../x', '0', '0', '10']).status).toBe(2)
  })
})

describe('parsing what a session prints', () => {
  it('drops lines that are not jobs, and bounds what it keeps', () => {
    expect(parseJobLine('jabc\trunning\t\t1700000000\t\tsleep 1')).toMatchObject({ id: 'jabc', state: 'running', exitCode: null, endedAt: null })
    expect(parseJobLine('../etc\trunning\t\t1\t\tx')).toBeNull()
    expect(parseJobLine('jabc\tweird\t1\t1\t1\tx')).toBeNull()
    expect(parseJobLine(`jabc\texited\t0\t1\t2\t${'x'.repeat(5000)}`)!.command.length).toBe(2000)
  })

  it('keeps a partial last line for the next read while the job runs', () => {
    const out = Buffer.from('state running\nrc \ngen 0\ncurrent 0\nfile log\noffset 0\nsize 20\n--\n1700000000 whole\n1700000000 par')
    const r = parseLogRead(out, { gen: 0, offset: 0 })
    expect(r.lines.map((l) => l.text)).toEqual(['whole'])
    expect(r.cursor).toEqual({ gen: 0, offset: 17 })
  })
})
