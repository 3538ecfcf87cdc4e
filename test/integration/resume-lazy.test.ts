// A developer opens the lid: the session answers before all its memory is back (CRIU lazy pages),
// and none of that memory is ever lost, not even when the page server dies or hangs half way. The
// session runs on a private engine whose CRIU the test can break (test/support/criu.ts): its page
// server is held stopped from the moment it listens, so the restore goes through and the session
// runs while its pages are still in the checkpoint, and only then is it killed or left hanging.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, sleep, until } from '../support/berth'
import { CriuSwitch } from '../support/criu'
import { PrivateDockerd } from '../support/dockerd'
import { testHost } from '../support/testhost'

type Event = { kind: string; detail: Record<string, unknown> }

const h = testHost()

// 512 MiB of random bytes held by one process in a view; on SIGUSR1 it writes their md5 to /tmp/sum
const MIB = 512
const LOAD = [
  `open(F, "<", "/dev/urandom") or die; my $x = ""; while (length($x) < ${MIB} * 1048576) { my $b; read(F, $b, 16777216) or die; $x .= $b } close F;`,
  `$SIG{USR1} = sub { open(my $p, "|-", "md5sum > /tmp/sum.new && mv /tmp/sum.new /tmp/sum") or die; print $p $x; close $p };`,
  `open(my $r, ">", "/tmp/load.pid"); print $r $$; close $r; sleep 1 while 1;`,
].join(' ')

/** a process's state letter in /proc (T: stopped), or null once it is gone */
const procState = (pid: number): string | null => {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1] ?? null
  } catch {
    return null
  }
}

describe('resume with lazy pages', () => {
  const criu = new CriuSwitch()
  const engine = new PrivateDockerd('172.31.219.1/24', { PATH: criu.path })
  const berth = new BerthHome('resume-lazy')
  const env = { DOCKER_HOST: engine.dockerHost }
  const run = (args: string[], timeoutMs = 120_000) => berth.run(args, { env, timeoutMs })
  const json = <T = any>(args: string[], timeoutMs = 120_000) => berth.json<T>(args, { env, timeoutMs })
  let id = ''
  let container = ''
  let before = ''

  const checksum = async (): Promise<string> => {
    const r = await run(['exec', id, '--', 'sh', '-c', 'rm -f /tmp/sum; kill -USR1 "$(cat /tmp/load.pid)"; i=0; while [ ! -s /tmp/sum ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; cat /tmp/sum'], 90_000)
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^[0-9a-f]{32} /)
    return r.stdout.trim()
  }
  /** the shell variable set in the session's tmux view, read back through that same shell */
  const tmuxVariable = async (): Promise<string> =>
    (await run(['exec', id, '--', 'sh', '-c', `tmux send-keys -t work 'echo "v=$KEPT" > /tmp/kept' Enter; sleep 0.7; cat /tmp/kept`])).stdout.trim()
  const events = async (): Promise<Event[]> => await json<Event[]>(['session', 'events', id])
  const memoryBack = async (after: number, timeoutMs = 120_000): Promise<Event> =>
    await until(async () => (await events()).slice(after).find((e) => e.kind === 'memory-back'), 'all memory to be back', timeoutMs)
  const lazyDir = () => `/run/berth-lazy/${container}`
  const resultOnServer = () => `${lazyDir()}/result`
  /** the container's memory checkpoints in Docker's folders */
  const checkpointsOnDisk = (): string[] => {
    const dir = join(engine.dataRoot, 'containers', container, 'checkpoints')
    return existsSync(dir) ? readdirSync(dir).sort() : []
  }
  const pauseWithMemory = async () => {
    expect(await json(['pause', id, '--wait'], 180_000)).toMatchObject({ paused: true, mode: 'memory', durable: true })
  }
  /** resumed lazily; the page server is held once the restore is done: the session runs, its memory not all back */
  const resumeHeldAfterRestore = async (): Promise<number> => {
    criu.holdsPages('after-restore')
    expect(await json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
    const pid = criu.lazyPagesPid()
    await until(() => procState(pid) === 'T' || undefined, 'the page server to be held', 10_000)
    expect((await engine.docker().getContainer(container).inspect()).State).toMatchObject({ Running: true })
    expect(existsSync(resultOnServer())).toBe(false)
    return pid
  }
  /** every byte back and the view's shell as it was */
  const intact = async () => {
    expect(await json(['session', 'show', id])).toMatchObject({ state: 'running' })
    expect(await tmuxVariable()).toBe('v=lazy-kept-42')
    expect(await checksum()).toBe(before)
    // its outcome recorded, nothing of the lazy restore is left on the server
    await until(() => !existsSync(lazyDir()) || undefined, 'the lazy restore\'s folder on the server to go', 30_000)
  }

  beforeAll(async () => {
    criu.works()
    await engine.start()
    engine.loadFrom(h.localSocket, h.baseImage)
    engine.loadFrom(h.localSocket, h.tinyImage)
    await json(['settings', 'set', 'lazyResume', 'true'])
    // the memory test finds the engine's CRIU (this one): the page server is started from it
    const found = await until(async () => {
      const m = (await json(['server', 'test', 'local'])).memoryPause
      return m?.available ? m : undefined
    }, 'the probe to find a working CRIU', 90_000)
    expect(found).toMatchObject({ available: true })
    const s = await json(['session', 'create', '--image', h.baseImage, '--name', 'big'])
    id = s.id
    container = (await engine.docker().getContainer(s.containerId).inspect()).Id
    const started = await run(['exec', id, '--', 'sh', '-c', `printf '%s' '${LOAD}' > /tmp/load.pl && tmux new-session -d -s load 'perl /tmp/load.pl'`])
    expect(started.code).toBe(0)
    await until(async () => (await run(['exec', id, '--', 'test', '-s', '/tmp/load.pid'])).code === 0 || undefined, 'the load to hold its memory', 120_000)
    const set = await run(['exec', id, '--', 'sh', '-c', `tmux new-session -d -s work && tmux send-keys -t work 'export KEPT=lazy-kept-42' Enter && sleep 0.5`])
    expect(set.code).toBe(0)
    before = await checksum()
  }, 400_000)

  afterAll(async () => {
    await berth.cleanup()
    await engine.stop()
    criu.remove()
  })

  it('answers at once, and every byte of 512 MiB is back, checksummed', async () => {
    criu.works()
    await pauseWithMemory()
    const seen = (await events()).length
    expect(await json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
    expect(await tmuxVariable()).toBe('v=lazy-kept-42')
    expect(await checksum()).toBe(before)
    const back = await memoryBack(seen)
    expect(back.detail).toMatchObject({ lazy: true })
    // the time the server took to bring every page back (its "done MS"), after which its record goes
    expect(back.detail.ms).toBeGreaterThan(0)
    await until(() => !existsSync(lazyDir()) || undefined, 'the lazy restore\'s folder on the server to go', 30_000)
    expect(await json(['session', 'show', id])).toMatchObject({ state: 'running' })
  }, 300_000)

  it('the page server is killed before all memory is back: the session is restored again in full, nothing lost', async () => {
    await pauseWithMemory()
    const seen = (await events()).length
    const pid = await resumeHeldAfterRestore()
    process.kill(pid, 'SIGKILL')
    const back = await memoryBack(seen, 90_000)
    expect(back.detail).toMatchObject({ lazy: false })
    const failed = (await events()).slice(seen).find((e) => e.kind === 'lazy-restore-failed')
    expect(String(failed?.detail.reason)).toMatch(/lazy-pages daemon stopped before all memory was back/)
    criu.works()
    await intact()
  }, 300_000)

  it('the page server hangs once the session runs: it is ended at its deadline, the session is restored again in full, nothing lost', async () => {
    await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '8'])
    try {
      await pauseWithMemory()
      const seen = (await events()).length
      const t0 = Date.now()
      const pid = await resumeHeldAfterRestore()
      const back = await memoryBack(seen, 90_000)
      expect(back.detail).toMatchObject({ lazy: false })
      expect(Date.now() - t0).toBeLessThan(60_000)
      expect(procState(pid)).toBeNull()
      const failed = (await events()).slice(seen).find((e) => e.kind === 'lazy-restore-failed')
      expect(String(failed?.detail.reason)).toContain('within 8 s')
      criu.works()
      await intact()
    } finally {
      await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '120'])
    }
  }, 300_000)

  it('the page server hangs before the restore is done: the resume is not held past its bound, it restores in full and says so', async () => {
    await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '8'])
    try {
      await pauseWithMemory()
      criu.holdsPages('at-once')
      const t0 = Date.now()
      const resumed = await json(['resume', id])
      expect(Date.now() - t0).toBeLessThan(60_000)
      expect(resumed).toMatchObject({ resumed: true, mode: 'memory' })
      expect(resumed.lazy).toBeUndefined()
      expect(resumed.note).toMatch(/restored in full, not lazily: the restore did not finish within .* its page server did not serve/)
      expect(procState(criu.lazyPagesPid())).toBeNull()
      criu.works()
      await intact()
    } finally {
      await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '120'])
    }
  }, 300_000)

  it('Berth is killed while the pages are still arriving: the checkpoint stays whole, and Berth restores it again at its next start, nothing lost', async () => {
    await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '8'])
    try {
      await pauseWithMemory()
      const kept = checkpointsOnDisk()
      expect(kept.length).toBeGreaterThan(0)
      const seen = (await events()).length
      const pid = await resumeHeldAfterRestore()
      process.kill(berth.daemonPid()!, 'SIGKILL')
      // with no Berth to follow it, the server ends the restore at its deadline: the container is
      // stopped (no page may read as zeroes) and the checkpoint is whole
      await until(() => existsSync(resultOnServer()) || undefined, 'the server to end the lazy restore', 60_000)
      expect(readFileSync(resultOnServer(), 'utf8')).toMatch(/^failed not all memory was back within 8 s/)
      expect(procState(pid)).toBeNull()
      await until(async () => (await engine.docker().getContainer(container).inspect()).State.Running === false || undefined, 'the container to be stopped', 10_000)
      expect(checkpointsOnDisk()).toEqual(kept)
      // Berth starts again (the next command starts it) and restores the session in full from it
      criu.works()
      const back = await memoryBack(seen, 120_000)
      expect(back.detail).toMatchObject({ lazy: false })
      await intact()
    } finally {
      await json(['settings', 'set', 'lazyResumeDeadlineSeconds', '120'])
    }
  }, 300_000)

  it("a restore in full started while another session's lazy resume has its options in CRIU's configuration waits for them to go, and restores in full, nothing lost", async () => {
    criu.works()
    // A: resumed lazily, its CRIU slow to start, so its options stay in /etc/criu/runc.conf a while;
    // B: resumed in full meanwhile (lazy pages off), its view's shell holding a variable
    const a = await json(['session', 'create', '--image', h.tinyImage, '--name', 'lazy-a'])
    const b = await json(['session', 'create', '--image', h.baseImage, '--name', 'full-b'])
    const aId = (await engine.docker().getContainer(a.containerId).inspect()).Id
    const set = await run(['exec', b.id, '--', 'sh', '-c', `tmux new-session -d -s work && tmux send-keys -t work 'export KEPT=full-kept-7' Enter && sleep 0.5`])
    expect(set.code).toBe(0)
    for (const s of [a, b]) expect(await json(['pause', s.id, '--wait'], 180_000)).toMatchObject({ paused: true, mode: 'memory', durable: true })
    const conf = '/etc/criu/runc.conf'
    const lazyConf = () => existsSync(conf) && readFileSync(conf, 'utf8').includes('lazy-pages')
    try {
      criu.slowToStartFor(aId, 5000)
      const lazyA = json(['resume', a.id])
      await until(() => lazyConf() || undefined, "A's lazy options to be in CRIU's configuration", 30_000)
      await json(['settings', 'set', 'lazyResume', 'false'])
      // the configuration is watched while B resumes: B's restore may not start before it is gone
      let goneAt = 0
      const watch = (async () => {
        while (lazyConf()) await sleep(10)
        goneAt = Date.now()
      })()
      const fullB = await json(['resume', b.id])
      const doneAt = Date.now()
      await watch
      expect(fullB).toMatchObject({ resumed: true, mode: 'memory' })
      expect(fullB.lazy).toBeUndefined()
      expect(fullB.fallback).toBeUndefined()
      expect(goneAt).toBeGreaterThan(0)
      expect(goneAt).toBeLessThanOrEqual(doneAt)
      const kept = await run(['exec', b.id, '--', 'sh', '-c', `tmux send-keys -t work 'echo "v=$KEPT" > /tmp/kept' Enter; sleep 0.7; cat /tmp/kept`])
      expect(kept.stdout.trim()).toBe('v=full-kept-7')
      // A went on lazily, with its own page server, and all its memory came back
      expect(await lazyA).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
      await until(async () => (await json<Event[]>(['session', 'events', a.id])).find((e) => e.kind === 'memory-back') ?? undefined, "A's memory to be back", 120_000)
      expect(await json(['session', 'show', a.id])).toMatchObject({ state: 'running' })
      expect(lazyConf()).toBe(false)
    } finally {
      criu.works()
      await json(['settings', 'set', 'lazyResume', 'true'])
    }
    for (const s of [a, b]) await json(['finish', s.id, '--force'], 60_000).catch(() => undefined)
  }, 300_000)

  it("a pause while a lazy resume holds CRIU's configuration keeps its deadline", async () => {
    criu.works()
    const small = await json(['session', 'create', '--image', h.tinyImage, '--name', 'small'])
    expect((await run(['exec', 'small', '--', 'sh', '-c', '(dd if=/dev/zero bs=16M count=1 | sleep 3600) </dev/null >/dev/null 2>&1 &'])).code).toBe(0)
    // the lock a lazy restore holds while its CRIU places the memory, held here for longer than any
    // does (flock -o: the lock goes with this process, not with the sleep under it)
    let holder: ChildProcess | undefined
    try {
      holder = spawn('flock', ['-x', '-o', '/run/berth-criu.lock', 'sleep', '120'], { stdio: 'ignore' })
      await sleep(500)
      expect(holder.exitCode).toBeNull()
      const t0 = Date.now()
      const paused = await json(['pause', small.id, '--wait', '--deadline', '16'])
      expect(Date.now() - t0).toBeLessThan(17_000)
      expect(paused).toMatchObject({ paused: true, durable: true })
    } finally {
      holder?.kill('SIGKILL')
    }
    expect(await json(['resume', small.id])).toMatchObject({ resumed: true })
  }, 120_000)
})
