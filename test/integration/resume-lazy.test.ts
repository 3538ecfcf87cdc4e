// A developer opens the lid: the session answers before all its memory is back (CRIU lazy pages),
// and none of that memory is ever lost, not even when the page server dies or hangs half way.
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, until } from '../support/berth'
import { testHost } from '../support/testhost'
import { readTmuxVariable, setTmuxVariable } from '../support/views'

type Event = { kind: string; detail: Record<string, unknown> }

// 512 MiB of random bytes held by one process in a view; on SIGUSR1 it writes their md5 to /tmp/sum
const MIB = 512
const LOAD = [
  `open(F, "<", "/dev/urandom") or die; my $x = ""; while (length($x) < ${MIB} * 1048576) { my $b; read(F, $b, 16777216) or die; $x .= $b } close F;`,
  `$SIG{USR1} = sub { open(my $p, "|-", "md5sum > /tmp/sum.new && mv /tmp/sum.new /tmp/sum") or die; print $p $x; close $p };`,
  `open(my $r, ">", "/tmp/load.pid"); print $r $$; close $r; sleep 1 while 1;`,
].join(' ')

describe('resume with lazy pages', () => {
  const berth = new BerthHome('resume-lazy')
  const base = testHost().baseImage
  let id = ''
  let container = ''
  let before = ''

  const checksum = async (): Promise<string> => {
    const r = await berth.run(['exec', id, '--', 'sh', '-c', 'rm -f /tmp/sum; kill -USR1 "$(cat /tmp/load.pid)"; i=0; while [ ! -s /tmp/sum ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; cat /tmp/sum'], {
      timeoutMs: 90_000,
    })
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^[0-9a-f]{32} /)
    return r.stdout.trim()
  }
  const events = async (): Promise<Event[]> => (await berth.json(['session', 'events', id])) as Event[]
  const memoryBack = async (after: number): Promise<Event> =>
    await until(async () => (await events()).slice(after).find((e) => e.kind === 'memory-back'), 'all memory to be back', 120_000)
  const daemonPid = (): number => Number(readFileSync(`/run/berth-lazy/${container}/daemon`, 'utf8').trim())
  const pauseWithMemory = async () => {
    const paused = await berth.json(['pause', id, '--wait'], { timeoutMs: 180_000 })
    expect(paused).toMatchObject({ paused: true, mode: 'memory', durable: true })
  }

  beforeAll(async () => {
    await berth.json(['settings', 'set', 'lazyResume', 'true'])
    const s = await berth.json(['session', 'create', '--image', base, '--name', 'big'])
    id = s.id
    container = (await localDocker().getContainer(s.containerId).inspect()).Id
    const started = await berth.run(['exec', id, '--', 'sh', '-c', `printf '%s' '${LOAD}' > /tmp/load.pl && tmux new-session -d -s load 'perl /tmp/load.pl'`])
    expect(started.code).toBe(0)
    await until(async () => (await berth.run(['exec', id, '--', 'test', '-s', '/tmp/load.pid'])).code === 0 || undefined, 'the load to hold its memory', 120_000)
    await setTmuxVariable(berth, id, 'lazy-kept-42')
    before = await checksum()
  }, 240_000)

  afterAll(() => berth.cleanup())

  it('answers at once, and every byte of 512 MiB is back, checksummed', async () => {
    await pauseWithMemory()
    const seen = (await events()).length
    const resumed = await berth.json(['resume', id], { timeoutMs: 120_000 })
    expect(resumed).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
    expect(await readTmuxVariable(berth, id)).toBe('v=lazy-kept-42')
    expect(await checksum()).toBe(before)
    const back = await memoryBack(seen)
    expect(back.detail).toMatchObject({ lazy: true })
    // the checkpoint goes only once all memory is back
    await until(
      async () => (await berth.run(['exec', id, '--', 'true'])).code === 0 && (await localDocker().getContainer(container).inspect()).State.Running || undefined,
      'the session to keep running',
    )
    const shown = await berth.json(['session', 'show', id])
    expect(shown).toMatchObject({ state: 'running' })
  }, 300_000)

  it('a page server killed half way: the container is stopped, restored again in full, nothing lost', async () => {
    await pauseWithMemory()
    const seen = (await events()).length
    const resumed = await berth.json(['resume', id], { timeoutMs: 120_000 })
    expect(resumed).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
    // stopped first so that it cannot finish in between; then killed, as a crash would
    const pid = daemonPid()
    process.kill(pid, 'SIGSTOP')
    process.kill(pid, 'SIGKILL')
    const back = await memoryBack(seen)
    expect(back.detail).toMatchObject({ lazy: false })
    const kinds = (await events()).slice(seen).map((e) => e.kind)
    expect(kinds).toContain('lazy-restore-failed')
    expect(await readTmuxVariable(berth, id)).toBe('v=lazy-kept-42')
    expect(await checksum()).toBe(before)
  }, 300_000)

  it('a page server that hangs: stopped at its deadline, restored again in full, nothing lost', async () => {
    await berth.json(['settings', 'set', 'lazyResumeDeadlineSeconds', '8'])
    await pauseWithMemory()
    const seen = (await events()).length
    const t0 = Date.now()
    const resumed = await berth.json(['resume', id], { timeoutMs: 120_000 })
    expect(resumed).toMatchObject({ resumed: true, mode: 'memory', lazy: true })
    process.kill(daemonPid(), 'SIGSTOP')
    const back = await memoryBack(seen)
    expect(back.detail).toMatchObject({ lazy: false })
    expect(Date.now() - t0).toBeLessThan(60_000)
    const failed = (await events()).slice(seen).find((e) => e.kind === 'lazy-restore-failed')
    expect(String(failed?.detail.reason)).toContain('within 8 s')
    expect(await readTmuxVariable(berth, id)).toBe('v=lazy-kept-42')
    expect(await checksum()).toBe(before)
    await berth.json(['settings', 'set', 'lazyResumeDeadlineSeconds', '120'])
  }, 300_000)
})
