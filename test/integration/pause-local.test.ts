// A developer pauses sessions on the laptop's own engine and gets them back exactly as they were,
// or, where memory cannot be kept, is told so.
import { afterAll, describe, expect, it } from 'vitest'
import { connectOrStart } from '../../src/main/doors/control-client'
import { BerthHome, localDocker, ROOT, sleep, until } from '../support/berth'
import { jobProcesses } from '../support/pauses'
import { testHost } from '../support/testhost'
import { counter, counterAtLeast, startViews, typeInView, viewShows } from '../support/views'
import { execFile, execFileSync } from 'node:child_process'
import { join } from 'node:path'

describe('pause and resume on the local engine', () => {
  const berth = new BerthHome('pause-local')
  const base = testHost().baseImage

  afterAll(() => berth.cleanup())

  it('keeps memory: a shell variable in a view and a counter loop continue after resume', async () => {
    const s = await berth.json(['session', 'create', '--image', base, '--name', 'mem'])
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo draft > /workspace/notes.txt'])
    await startViews(berth, s.id, { counter: true })
    await typeInView(berth, s.id, 'BERTH_VAR=kept-$((6*7))')
    const before = await counterAtLeast(berth, s.id, 30)
    // a file written a moment before the pause (the pause flushes the session's filesystems)
    const written = await berth.run(['exec', s.id, '--', 'sh', '-c', 'head -c 1048576 /dev/urandom > /workspace/last.bin; md5sum < /workspace/last.bin'])
    expect(written.code).toBe(0)

    const paused = await berth.json(['pause', s.id, '--wait'])
    expect(paused).toMatchObject({ paused: true, mode: 'memory', durable: true })
    // one name for the pause's checkpoint: the one the snapshot list gives it
    expect(paused.snapshot).toMatch(/\.pause:v\d+$/)
    expect(paused.ms).toBeGreaterThan(0)
    expect(paused.fallback).toBeUndefined()
    const shown = await berth.json(['session', 'show', s.id])
    expect(shown).toMatchObject({ state: 'paused', mode: 'memory', durable: true, pausedBy: 'user', route: s.route })
    const info = await localDocker().getContainer(shown.containerId).inspect()
    expect(info.State.Running).toBe(false)
    const blocked = await berth.run(['exec', s.id, '--', 'true'])
    expect(blocked.code).toBe(1)
    expect(blocked.stderr).toContain('paused')

    const resumed = await berth.json(['resume', s.id])
    expect(resumed).toMatchObject({ resumed: true, mode: 'memory' })
    const after = await counter(berth, s.id)
    expect(after).toBeGreaterThanOrEqual(before)
    await typeInView(berth, s.id, 'echo "var=$BERTH_VAR"')
    await viewShows(berth, s.id, 'var=kept-42')
    const back = await berth.json(['session', 'show', s.id])
    expect(back).toMatchObject({ id: s.id, state: 'running', mode: null, route: s.route, containerId: shown.containerId })
    const file = await berth.run(['exec', s.id, '--', 'cat', '/workspace/notes.txt'])
    expect(file.stdout).toBe('draft\n')
    const last = await berth.run(['exec', s.id, '--', 'sh', '-c', 'md5sum < /workspace/last.bin'])
    expect(last.stdout).toBe(written.stdout)
    // the counter keeps counting after the resume
    await counterAtLeast(berth, s.id, after + 3)

    const events = (await berth.json(['session', 'events', s.id])) as Array<{ kind: string; from: string | null; to: string | null; detail: Record<string, unknown> }>
    const path = events.filter((e) => e.kind === 'transition').map((e) => `${e.from}->${e.to}`)
    expect(path).toEqual(['creating->running', 'running->pausing', 'pausing->paused', 'paused->resuming', 'resuming->running'])
    expect(events.find((e) => e.kind === 'pause-durable')?.detail).toMatchObject({ mode: 'memory', snapshot: paused.snapshot })
  })

  it('is safe to repeat, and answers unknown and finished sessions clearly', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    const first = await berth.json(['pause', s.id, '--wait'])
    expect(first.paused).toBe(true)
    const again = await berth.run(['pause', s.id, '--json'])
    expect(again.code).toBe(0)
    expect(JSON.parse(again.stdout)).toEqual({ paused: false })
    const human = await berth.run(['pause', s.id])
    expect(human.stdout).toContain('already paused')

    expect(await berth.json(['resume', s.id])).toMatchObject({ resumed: true })
    expect(await berth.json(['resume', s.id])).toEqual({ resumed: false })

    const unknown = await berth.run(['pause', 'no-such-session'])
    expect(unknown.code).toBe(3)
    expect(unknown.stderr).toBe('berth: session not found: no-such-session\n')
    const unknownResume = await berth.run(['resume', 'nope', '--json'])
    expect(unknownResume.code).toBe(3)
    expect(JSON.parse(unknownResume.stdout)).toEqual({ error: { code: 'not_found', message: 'session not found: nope' } })
    const usage = await berth.run(['pause'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('usage: berth pause')
    const both = await berth.run(['pause', s.id, '--all'])
    expect(both.code).toBe(2)

    await berth.json(['finish', s.id])
    const resumeFinished = await berth.run(['resume', s.id])
    expect(resumeFinished.code).toBe(1)
    expect(resumeFinished.stderr).toMatch(/cannot resume session .*: the session finished/)
    const pauseFinished = await berth.run(['pause', s.id, '--json'])
    expect(pauseFinished.code).toBe(1)
    expect(JSON.parse(pauseFinished.stdout).error.code).toBe('refused')
  })

  it('falls back to frozen when the server cannot checkpoint, and says so', async () => {
    await berth.json(['server', 'checkpoint', 'local', 'off'])
    try {
      const s = await berth.json(['session', 'create', '--image', base])
      await startViews(berth, s.id, { counter: true })
      await typeInView(berth, s.id, 'FROZEN_VAR=still-here')
      const before = await counterAtLeast(berth, s.id, 10)
      const r = await berth.json(['pause', s.id, '--wait'])
      expect(r).toMatchObject({ paused: true, mode: 'frozen', durable: true })
      expect(r.fallback).toBe('memory checkpoints are turned off for server local (`berth server checkpoint local auto` turns them on)')
      const shown = await berth.json(['session', 'show', s.id])
      expect(shown).toMatchObject({ state: 'paused', mode: 'frozen' })
      const info = await localDocker().getContainer(shown.containerId).inspect()
      expect(info.State.Paused).toBe(true)
      // the committed disk snapshot exists (under the pause's own tag; the user reads the listed name)
      const pauseImages = async () => (await localDocker().listImages({ filters: JSON.stringify({ reference: [`berth/${s.id}:pause-*`] }) })).length
      expect(await pauseImages()).toBe(1)
      const human = await berth.run(['session', 'show', s.id])
      expect(human.stdout).toContain('paused (frozen)')

      const back = await berth.json(['resume', s.id])
      expect(back).toMatchObject({ resumed: true, mode: 'frozen' })
      expect(await counter(berth, s.id)).toBeGreaterThanOrEqual(before)
      await typeInView(berth, s.id, 'echo "frozen=$FROZEN_VAR"')
      await viewShows(berth, s.id, 'frozen=still-here')
      // the snapshot is removed once the session runs again (nothing needs it)
      await until(async () => (await pauseImages()) === 0, 'the pause image to be removed')
    } finally {
      await berth.json(['server', 'checkpoint', 'local', 'auto'])
    }
  })

  it('a session serving on a TCP port: its memory is kept, or the pause says plainly why not and lands on disk at once', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'mkdir -p /srv && echo served > /srv/index.html'])
    await berth.run(['exec', '--detach', s.id, '--', 'busybox', 'httpd', '-f', '-p', '8080', '-h', '/srv'])
    const page = () => berth.run(['exec', s.id, '--', 'busybox', 'wget', '-qO-', 'http://127.0.0.1:8080/'])
    await until(async () => ((await page()).stdout === 'served\n' ? true : undefined), 'the server to answer')
    const t0 = Date.now()
    const r = await berth.json(['pause', s.id, '--wait'])
    const took = Date.now() - t0
    expect(r).toMatchObject({ paused: true, durable: true })
    if (r.mode === 'memory') {
      // a CRIU that saves network sockets: the same server answers after the resume
      expect((await berth.json(['resume', s.id])).mode).toBe('memory')
      expect((await page()).stdout).toBe('served\n')
    } else {
      // CRIU before 4.2 on Linux 6.16 and later (this machine kind): said in words, no second try
      // through Docker's own checkpoint, and the files are kept
      const [major, minor] = execFileSync('uname', ['-r'], { encoding: 'utf8' }).split('.').map(Number)
      expect(major! * 100 + minor!).toBeGreaterThanOrEqual(616)
      expect(r.mode).toBe('disk')
      expect(r.fallback).toMatch(/^this server's CRIU cannot save the session's network sockets .* on Linux 6\./)
      expect(took).toBeLessThan(15_000)
      expect((await berth.json(['resume', s.id])).mode).toBe('disk')
      expect((await berth.run(['exec', s.id, '--', 'cat', '/srv/index.html'])).stdout).toBe('served\n')
    }
    await berth.json(['finish', s.id])
  })

  it('pauses without memory on request: files kept, resume cold-boots', async () => {
    const s = await berth.json(['session', 'create', '--image', base])
    await startViews(berth, s.id)
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo kept > /workspace/disk.txt; echo layer > /root/layer.txt'])
    const r = await berth.json(['pause', s.id, '--no-memory', '--wait'])
    expect(r).toMatchObject({ paused: true, mode: 'disk', durable: true })
    const human = await berth.run(['pause', s.id])
    expect(human.stdout).toContain('already paused')
    const back = await berth.json(['resume', s.id])
    expect(back).toMatchObject({ resumed: true, mode: 'disk' })
    const files = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat /workspace/disk.txt /root/layer.txt'])
    expect(files.stdout).toBe('kept\nlayer\n')
    // processes did not survive: no tmux server after a cold boot
    const views = await berth.run(['exec', s.id, '--', 'tmux', 'ls'])
    expect(views.code).not.toBe(0)
  })

  it('resumes a session whose container was removed by hand from the files its pause kept, and says so', async () => {
    const s = await berth.json(['session', 'create', '--image', base])
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo kept > /workspace/disk.txt; echo layer > /root/layer.txt'])
    await berth.json(['pause', s.id, '--no-memory', '--wait'])
    await localDocker().getContainer(s.containerId).remove({ force: true })
    const back = await berth.run(['resume', s.id])
    expect(back.code).toBe(0)
    expect(back.stdout).toContain('the container was gone: its disk came back from its last pause')
    const now = await berth.json(['session', 'show', s.id])
    expect(now).toMatchObject({ state: 'running', failure: null })
    expect(now.containerId).not.toBe(s.containerId)
    const files = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat /workspace/disk.txt /root/layer.txt'])
    expect(files.stdout).toBe('kept\nlayer\n')
  })

  it('answers as soon as the session is frozen with its files durable, without --wait, and keeps its memory in the background', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    const r = await berth.json(['pause', s.id])
    // the first stage of every pause: its CPU stops and its files are durable; the memory follows
    expect(r).toMatchObject({ paused: true, mode: 'frozen', durable: false })
    expect(r.frozenMs).toBeGreaterThan(0)
    await until(async () => (await berth.json(['session', 'show', s.id])).durable === true, 'the pause to become durable')
    expect(await berth.json(['session', 'show', s.id])).toMatchObject({ state: 'paused', mode: 'memory', durable: true })
    const events = (await berth.json(['session', 'events', s.id])) as Array<{ kind: string }>
    expect(events.map((e) => e.kind)).toContain('pause-durable')
    await berth.json(['resume', s.id])
  })

  it('detaches exec streams before the checkpoint; views survive and can be attached again', async () => {
    const s = await berth.json(['session', 'create', '--image', base])
    await startViews(berth, s.id)
    await typeInView(berth, s.id, 'VIEW_VAR=view-$((7*6))')
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    try {
      const exits: Array<{ streamId: string; exitCode: number | null; error?: string }> = []
      c.on('stream.exit', (e) => exits.push(e))
      // a terminal attached to the view, and a long command, both through Berth
      const term = await c.call('exec.open', { id: s.id, cmd: ['tmux', 'attach', '-t', 'work'], tty: true, stdin: true, cols: 80, rows: 24 })
      const cmd = await c.call('exec.open', { id: s.id, cmd: ['sleep', '300'] })
      await sleep(500)
      const r = await c.call('session.pause', { id: s.id, wait: true })
      expect(r).toMatchObject({ paused: true, mode: 'memory' })
      await until(() => exits.length >= 2, 'both streams to end')
      for (const id of [term.streamId, cmd.streamId]) {
        const e = exits.find((x) => x.streamId === id)
        expect(e?.error).toContain('is pausing; reattach once it resumes')
      }
      const events = await c.call('session.events', { id: s.id })
      expect(JSON.stringify(events)).toContain('ended')
      expect(await c.call('session.resume', { id: s.id })).toMatchObject({ resumed: true, mode: 'memory' })
    } finally {
      c.close()
    }
    await typeInView(berth, s.id, 'echo "view=$VIEW_VAR"')
    await viewShows(berth, s.id, 'view=view-42')
  })

  it('shows the memory being written while the dump runs: the figure grows before the pause is durable', async () => {
    const s = await berth.json(['session', 'create', '--image', base, '--name', 'hefty'])
    // a process of the session (a detached job: in its own process tree, so the dump keeps it)
    // holding 512 MiB; it says so once the memory is filled
    const MiB = 1048576
    await berth.run(['exec', '--detach', s.id, '--', 'perl', '-e', `my $x = "m"; $x x= (512 * ${MiB}); open(my $f, ">", "/tmp/held"); close($f); sleep 3600`])
    await until(async () => (await berth.run(['exec', s.id, '--', 'test', '-e', '/tmp/held'])).code === 0, 'the session to hold 512 MiB', 60_000)
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    try {
      const seen: Array<{ bytes: number; total: number | null; message: string }> = []
      c.on('progress', (p) => p.op === 'hefty-pause' && p.stage === 'memory' && seen.push({ bytes: p.bytes, total: p.total, message: p.message }))
      await c.call('events.subscribe', { names: ['progress'] })
      const r = await c.call('session.pause', { id: s.id, wait: true, op: 'hefty-pause' })
      expect(r).toMatchObject({ paused: true, mode: 'memory', durable: true })
      // what a user watching the bar saw before "durable": it started at 0 of the memory expected,
      // moved while CRIU wrote, and ended at what was written, never going back
      const figures = seen.map((p) => p.bytes)
      const written = seen.filter((p) => p.message.startsWith('writing the memory of hefty') && p.bytes > 0).map((p) => p.bytes)
      const detail = JSON.stringify(seen.map((p) => `${p.message}: ${p.bytes}/${p.total}`))
      expect(seen[0], detail).toMatchObject({ bytes: 0, message: 'writing the memory of hefty' })
      expect(seen[0]!.total, detail).toBeGreaterThan(500 * MiB)
      expect(written.length, detail).toBeGreaterThanOrEqual(1)
      expect(new Set(figures.filter((b) => b > 0)).size, detail).toBeGreaterThanOrEqual(2)
      expect(figures, detail).toEqual([...figures].sort((a, b) => a - b))
      const last = seen.at(-1)!
      expect(last.message, detail).toBe('memory of hefty written; making it durable')
      expect(last.bytes, detail).toBeGreaterThan(500 * MiB)
      expect(Math.max(...written), detail).toBeLessThanOrEqual(last.bytes)
      console.log(`the pause's memory progress: ${detail}`)
    } finally {
      c.close()
    }
    // the dump's sampler ended with it: nothing of the pause's job is left running on the server
    const homeId = await berth.homeId()
    await until(() => jobProcesses(homeId).length === 0, 'the pause job and its sampler to be gone', 5000)
    expect(await berth.json(['resume', s.id])).toMatchObject({ resumed: true, mode: 'memory' })
    await berth.json(['finish', s.id])
  })

  /** Pauses ROUNDS times while four loops of `docker exec` (a user's script, not Berth) keep starting commands in the session. */
  async function pauseAmidExecs(id: string, mode: 'memory' | 'frozen', rounds: number): Promise<void> {
    const socket = `unix://${testHost().localSocket}`
    for (let round = 1; round <= rounds; round++) {
      let stop = false
      const loops = [1, 2, 3, 4].map(async () => {
        while (!stop) await run('docker', ['-H', socket, 'exec', `berth-${id}`, 'true'], 30_000)
      })
      await sleep(100 + ((round * 277) % 700))
      const t0 = Date.now()
      const paused = await berth.json(['pause', id, '--wait'], { timeoutMs: 60_000 })
      expect(paused).toMatchObject({ paused: true, mode, durable: true })
      expect(Date.now() - t0).toBeLessThan(30_000)
      stop = true
      await Promise.all(loops)
      expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode })
      await counterAtLeast(berth, id, (await counter(berth, id)) + 2)
    }
    const info = await localDocker().getContainer(`berth-${id}`).inspect()
    expect(info.State).toMatchObject({ Running: true, Paused: false })
  }

  it('finishes every pause while a script keeps starting commands in the session through docker exec', async () => {
    // The engine freezes a container before it checkpoints it (and for a frozen pause); a `docker
    // exec` starting at that moment used to freeze with it and hold both, and every later Docker
    // call on the container (resume included), for good.
    const s = await berth.json(['session', 'create', '--image', base, '--name', 'busy'])
    await startViews(berth, s.id, { counter: true })
    await pauseAmidExecs(s.id, 'memory', 4)
    await berth.json(['server', 'checkpoint', 'local', 'off'])
    try {
      await pauseAmidExecs(s.id, 'frozen', 3)
    } finally {
      await berth.json(['server', 'checkpoint', 'local', 'auto'])
    }
  })

  it('stops the meter while paused: no samples, no growing cost', async () => {
    await berth.json(['settings', 'set', 'meterSampleSeconds', '1'])
    await berth.json(['server', 'rate', 'local', '36'])
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'])
    const running = await until(async () => {
      const m = (await berth.json(['session', 'show', s.id])).meter
      return m && m.sampledAt && m.cpuSeconds > 0 && m.cost > 0 ? m : undefined
    }, 'the meter to sample the session')
    expect(running.ratePerHour).toBe(36)
    expect(running.peakMemoryBytes).toBeGreaterThan(0)
    // a list follows the meter from the sampling rounds' events, without asking
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    const sampled: number[] = []
    c.on('meter.sampled', (e) => {
      const m = e.meters.find((x) => x.sessionId === s.id)
      if (m) sampled.push(m.meter.cost)
    })
    await c.call('events.subscribe', { names: ['meter.sampled'] })
    await until(() => sampled.length >= 2, 'two sampling rounds to announce the meter')
    expect(sampled[1]).toBeGreaterThanOrEqual(sampled[0]!)
    await berth.json(['pause', s.id, '--wait'])
    const whilePaused = sampled.length
    const p1 = (await berth.json(['session', 'show', s.id])).meter
    await sleep(3000)
    const p2 = (await berth.json(['session', 'show', s.id])).meter
    expect(p2).toEqual(p1)
    expect(sampled.length).toBeLessThanOrEqual(whilePaused + 1) // a round already under way may still announce it
    c.close()
    expect(p2.memoryBytes).toBe(0)
    expect(p2.cpuSeconds).toBeGreaterThanOrEqual(running.cpuSeconds)
    await berth.json(['resume', s.id])
    const grows = await until(async () => {
      const m = (await berth.json(['session', 'show', s.id])).meter
      return m.cost > p2.cost && m.sampledAt !== p2.sampledAt ? m : undefined
    }, 'the meter to run again')
    expect(grows.runningSeconds).toBeGreaterThan(p2.runningSeconds)
    const human = await berth.run(['session', 'show', s.id])
    expect(human.stdout).toMatch(/meter: +cpu [\d.]+ s .* at 36\/h/)
  })
})

/** Runs a command and waits for it, whatever its exit code (a refused exec is part of the story). */
function run(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve) => execFile(cmd, args, { timeout: timeoutMs }, () => resolve()))
}

