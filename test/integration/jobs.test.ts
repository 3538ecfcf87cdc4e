// Detached jobs: a command started with `berth exec --detach` runs inside the session's own process
// tree, so a memory pause, a resume and a move carry it like the session's other processes; its
// output stays readable (`berth logs`, followed across a resume) and its exit code is kept.
import { spawn, spawnSync } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, BIN, until } from '../support/berth'
import { testHost } from '../support/testhost'

const h = testHost()
// counts until told to finish, then exits 7; each tick goes to a file and to its output
const COUNTER = 'i=0; while [ ! -e /workspace/finish ]; do i=$((i+1)); echo $i > /workspace/count; echo "tick $i"; sleep 0.3; done; echo done; exit 7'

describe('detached jobs', () => {
  const berth = new BerthHome('jobs')
  afterAll(() => berth.cleanup())

  const count = async (id: string) => Number((await berth.run(['exec', id, '--', 'cat', '/workspace/count'])).stdout.trim()) || 0
  const counting = (id: string, past: number) => until(async () => ((await count(id)) > past ? count(id) : undefined), `the job to count past ${past}`, 60_000)
  const ticks = async (id: string, job: string) => (await berth.json(['logs', id, job])).lines.map((l: { text: string }) => l.text) as string[]

  it('survive a memory pause and resume and a move to the office server, and finish with their exit code', { timeout: 900_000 }, async () => {
    await berth.addOffice()
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'worker'])
    const started = await berth.run(['exec', '--detach', 'worker', '--', 'sh', '-c', COUNTER])
    expect(started.code).toBe(0)
    const job = started.stdout.trim()
    expect(job).toMatch(/^j[a-z0-9]+$/)
    const listed = await berth.json(['jobs', 'worker'])
    expect(listed).toEqual([expect.objectContaining({ id: job, state: 'running', exitCode: null, endedAt: null })])
    expect(listed[0].command).toContain('sh -c')
    await counting(s.id, 3)

    // a memory pause and a resume: the same job counts on from where it was
    expect((await berth.json(['pause', 'worker', '--wait'])).mode).toBe('memory')
    const paused = await berth.run(['jobs', 'worker'])
    expect(paused.code).toBe(1)
    expect(paused.stderr).toContain('paused')
    await berth.json(['resume', 'worker'])
    const atResume = await count(s.id)
    await counting(s.id, atResume + 2)

    // a move to the office server, memory and all
    await berth.json(['pause', 'worker', '--wait'])
    const moved = await berth.json(['resume', 'worker', '--on', 'office'], { timeoutMs: 600_000 })
    expect(moved.memory).toBe(true)
    expect((await berth.json(['session', 'show', 'worker'])).server).toBe('office')
    const atMove = await count(s.id)
    await counting(s.id, atMove + 2)
    expect((await berth.json(['jobs', 'worker']))[0]).toMatchObject({ id: job, state: 'running' })

    await berth.run(['exec', 'worker', '--', 'touch', '/workspace/finish'])
    const done = await until(async () => {
      const j = (await berth.json(['jobs', 'worker']))[0]
      return j.state === 'exited' ? j : undefined
    }, 'the job to finish', 60_000)
    expect(done).toMatchObject({ id: job, exitCode: 7 })
    expect(done.endedAt).toBeTruthy()
    // one unbroken count: never started over
    const lines = await ticks(s.id, job)
    expect(lines[lines.length - 1]).toBe('done')
    const n = lines.filter((l) => l.startsWith('tick ')).map((l) => Number(l.slice(5)))
    expect(n).toEqual(Array.from({ length: n.length }, (_, i) => i + 1))
    expect(n.length).toBeGreaterThan(atMove)
    const human = await berth.run(['jobs', 'worker'])
    expect(human.stdout).toContain('exited 7')
  })

  it('logs --follow streams a job across a pause and resume; kill signals it and its code is kept', { timeout: 600_000 }, async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'follower'])
    const job = (await berth.run(['exec', '--detach', 'follower', '--', 'sh', '-c', 'trap "echo stopping; exit 143" TERM; i=0; while :; do i=$((i+1)); echo "tick $i"; sleep 0.3; done'])).stdout.trim()
    const child = spawn(process.execPath, [BIN, 'logs', 'follower', job, '--follow'], { env: berth.env(), stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    const exited = new Promise<number>((r) => child.on('close', (code) => r(code ?? -1)))
    try {
      await until(() => (out.includes('tick 3\n') ? true : undefined), 'the followed log to show tick 3', 60_000)
      await berth.json(['pause', 'follower', '--wait'])
      await berth.json(['resume', 'follower'])
      const seen = out.split('\n').filter((l) => l.startsWith('tick ')).length
      await until(() => (out.split('\n').filter((l) => l.startsWith('tick ')).length > seen + 2 ? true : undefined), 'the followed log to go on after the resume', 60_000)

      // a reader that has seen enough (`| head`) ends the follow at once, quietly
      const t0 = Date.now()
      const headed = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" logs follower ${job} --follow | head -2`], { env: berth.env(), encoding: 'utf8', timeout: 30_000 })
      expect(headed.stdout).toBe('tick 1\ntick 2\n')
      expect(headed.stderr).toBe('')
      expect(headed.status).toBe(0)
      expect(Date.now() - t0).toBeLessThan(15_000)

      const k = await berth.json(['kill', 'follower', job])
      expect(k.signalled).toBe(true)
      expect(await exited).toBe(0)
      const n = out.split('\n').filter((l) => l.startsWith('tick ')).map((l) => Number(l.slice(5)))
      expect(n).toEqual(Array.from({ length: n.length }, (_, i) => i + 1))
      expect(out).toContain('stopping\n')
      const j = (await berth.json(['jobs', 'follower']))[0]
      expect(j).toMatchObject({ id: job, state: 'exited', exitCode: 143 })
      // what was written since a moment ago only
      const recent = await berth.json(['logs', 'follower', job, '--since', '1s'])
      expect(recent.lines.length).toBeLessThan(n.length)
      const unknown = await berth.run(['logs', 'follower', 'jnothere'])
      expect(unknown.code).toBe(3)
      expect((await berth.run(['kill', 'follower', job, '--signal', 'BOGUS'])).code).toBe(2)
    } finally {
      child.kill()
    }
    await berth.json(['finish', s.id])
  })
})
