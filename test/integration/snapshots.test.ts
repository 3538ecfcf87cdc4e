// Snapshots on the laptop's engine: tag-qualified names, pages newest first, sessions made from a
// snapshot, a rewind that keeps what it replaced, and a restart that keeps files and route.
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, containersOf, localDocker, sleep } from '../support/berth'
import { testHost } from '../support/testhost'

// is the `sleep 1000` started earlier still running? (busybox has no pgrep; the pattern never matches grep itself)
const SLEEPING = 'n=no; for f in /proc/[0-9]*/cmdline; do grep -aq "sl[e]ep.1000" "$f" 2>/dev/null && n=yes; done; echo $n'

describe('snapshots', () => {
  const berth = new BerthHome('snap')
  const image = testHost().tinyImage

  afterAll(() => berth.cleanup())

  it('names snapshots NAME:vN, pages them newest first with a next token, and filters by session, server and name', async () => {
    const a = await berth.json(['session', 'create', '--image', image, '--name', 'alpha'])
    const b = await berth.json(['session', 'create', '--image', image, '--name', 'beta'])
    await berth.run(['exec', 'alpha', '--', 'sh', '-c', 'echo one > /workspace/note'])

    const n1 = await berth.json(['snapshot', 'create', 'alpha', '--name', 'nightly'])
    expect(n1).toMatchObject({ id: 'nightly:v1', name: 'nightly', version: 1, sessionId: a.id, server: 'local', auto: false, testRestored: false })
    expect(n1.sizeBytes).toBeGreaterThan(0)
    // a running session's snapshot keeps its memory, or says why not (snapshots-live.test.ts)
    expect(n1.kind === 'memory+disk' || typeof n1.memoryNote === 'string').toBe(true)
    const n2 = await berth.json(['snapshot', 'create', 'alpha', '--name', 'nightly'])
    expect(n2.id).toBe('nightly:v2')
    expect(n2.parentSnapshot).toBe('nightly:v1')
    const d1 = await berth.json(['snapshot', 'create', 'beta'])
    expect(d1.id).toBe('beta:v1')
    const n3 = await berth.json(['snapshot', 'create', 'beta', '--name', 'nightly'])
    expect(n3.id).toBe('nightly:v3')

    const p1 = await berth.json(['snapshot', 'ls', '--limit', '2'])
    expect(p1.items.map((s: { id: string }) => s.id)).toEqual(['nightly:v3', 'beta:v1'])
    expect(p1.next).toBeTruthy()
    const p2 = await berth.json(['snapshot', 'ls', '--limit', '2', '--next', p1.next])
    expect(p2.items.map((s: { id: string }) => s.id)).toEqual(['nightly:v2', 'nightly:v1'])
    expect(p2.next).toBeNull()

    const ofAlpha = await berth.json(['snapshot', 'ls', '--session', 'alpha'])
    expect(ofAlpha.items.map((s: { id: string }) => s.id)).toEqual(['nightly:v2', 'nightly:v1'])
    const named = await berth.json(['snapshot', 'ls', '--name', 'nightly', '--server', 'local'])
    expect(named.items.map((s: { id: string }) => s.id)).toEqual(['nightly:v3', 'nightly:v2', 'nightly:v1'])
    const human = await berth.run(['snapshot', 'ls', '--limit', '1'])
    expect(human.stdout).toContain('nightly:v3')
    expect(human.stdout).toMatch(/more: berth snapshot ls --next \S+ --limit 1/)

    const badToken = await berth.run(['snapshot', 'ls', '--next', 'zzzz'])
    expect(badToken.code).toBe(2)
    const unknownServer = await berth.run(['snapshot', 'ls', '--server', 'nowhere'])
    expect(unknownServer.code).toBe(3)

    // rm: the version is never reused; an unknown snapshot answers deleted:false
    expect(await berth.json(['snapshot', 'rm', 'nightly:v3'])).toEqual({ deleted: true })
    expect(await berth.json(['snapshot', 'rm', 'nightly:v3'])).toEqual({ deleted: false })
    expect(await berth.json(['snapshot', 'rm', 'no-such:v9'])).toEqual({ deleted: false })
    expect((await berth.json(['snapshot', 'create', 'beta', '--name', 'nightly'])).id).toBe('nightly:v4')
    const show = await berth.run(['snapshot', 'show', 'nope:v1'])
    expect(show.code).toBe(3)
    expect(show.stderr).toContain('snapshot not found: nope:v1')

    // snapshots outlive their session
    await berth.json(['finish', 'beta'])
    expect((await berth.json(['snapshot', 'show', 'beta:v1'])).sessionId).toBe(b.id)
    const fromFinished = await berth.json(['session', 'create', '--from', 'beta:v1', '--name', 'gamma'])
    expect(fromFinished).toMatchObject({ name: 'gamma', state: 'running', origin: { verb: 'create', snapshot: 'beta:v1' } })
    expect((await berth.json(['snapshot', 'show', 'beta:v1'])).testRestored).toBe(true)
    await berth.json(['finish', 'gamma'])
  })

  it('starts a session from a snapshot with its files and a route of its own', async () => {
    await berth.run(['exec', 'alpha', '--', 'sh', '-c', 'echo layer > /etc/berth-layer; echo two > /workspace/note'])
    const snap = await berth.json(['snapshot', 'create', 'alpha', '--name', 'base'])
    await berth.run(['exec', 'alpha', '--', 'sh', '-c', 'echo later > /workspace/note'])
    const alpha = await berth.json(['session', 'show', 'alpha'])
    const made = await berth.json(['session', 'create', '--from', snap.id, '--name', 'copy', '--env', 'EXTRA=1'])
    expect(made.id).not.toBe(alpha.id)
    expect(made.route).not.toBe(alpha.route)
    const r = await berth.run(['exec', 'copy', '--', 'sh', '-c', 'cat /workspace/note /etc/berth-layer; echo "$EXTRA $(hostname)"'])
    expect(r.stdout).toBe(`two\nlayer\n1 ${made.route}\n`)
    // the newest version when the name alone is given
    const latest = await berth.json(['session', 'create', '--from', 'base'])
    expect(latest.origin.snapshot).toBe('base:v1')
    expect((await berth.json(['snapshot', 'show', 'base'])).pinned).toBe(true)
    for (const id of [made.id, latest.id]) await berth.json(['finish', id])

    const both = await berth.run(['session', 'create', '--image', image, '--from', 'base'])
    expect(both.code).toBe(2)
    const missing = await berth.run(['session', 'create', '--from', 'nothing-here'])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain('snapshot not found: nothing-here')
  })

  it('rewinds a session to an earlier snapshot of its own, keeping the state it had as a snapshot', async () => {
    const s = await berth.json(['session', 'create', '--image', image, '--name', 'rew'])
    await berth.run(['exec', 'rew', '--', 'sh', '-c', 'echo first > /workspace/f; echo first > /etc/f'])
    const early = await berth.json(['snapshot', 'create', 'rew', '--name', 'early'])
    await berth.run(['exec', 'rew', '--', 'sh', '-c', 'echo second > /workspace/f; echo second > /etc/f; echo new > /workspace/g'])

    const r = await berth.json(['rewind', 'rew', '--to', early.id])
    expect(r.session).toMatchObject({ id: s.id, route: s.route, state: 'running' })
    expect(r.to.id).toBe(early.id)
    expect(r.kept).toMatchObject({ name: 'rew.pre-rewind', reason: 'pre-rewind', auto: false, sessionId: s.id })
    const now = await berth.run(['exec', 'rew', '--', 'sh', '-c', 'cat /workspace/f /etc/f; ls /workspace'])
    expect(now.stdout).toBe('first\nfirst\nf\n')

    // nothing was lost: the kept snapshot brings the later state back
    const back = await berth.json(['rewind', 'rew', '--to', r.kept.id])
    expect(back.session.route).toBe(s.route)
    const again = await berth.run(['exec', 'rew', '--', 'sh', '-c', 'cat /workspace/f /etc/f /workspace/g'])
    expect(again.stdout).toBe('second\nsecond\nnew\n')

    const foreign = await berth.run(['rewind', 'rew', '--to', 'nightly:v1'])
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toContain('not one of session rew')
    await berth.json(['finish', 'rew'])
  })

  it('restarts a session with new env values, keeping its id, files and route; its processes stop', async () => {
    const s = await berth.json(['session', 'create', '--image', image, '--name', 'rs', '--env', 'MODE=a'])
    await berth.run(['exec', 'rs', '--', 'sh', '-c', 'echo kept > /workspace/k; echo disk > /etc/d; (sleep 1000 &) ; echo started'])
    const before = await berth.run(['exec', 'rs', '--', 'sh', '-c', SLEEPING])
    expect(before.stdout.trim()).toBe('yes')
    const r = await berth.json(['restart', 'rs', '--env', 'MODE=b'])
    expect(r).toMatchObject({ id: s.id, route: s.route, state: 'running', env: { MODE: 'b' } })
    expect(r.containerId).not.toBe(s.containerId)
    const after = await berth.run(['exec', 'rs', '--', 'sh', '-c', `cat /workspace/k /etc/d; echo "$MODE $(hostname)"; ${SLEEPING}`])
    expect(after.stdout).toBe(`kept\ndisk\nb ${s.route}\nno\n`)
    const homeId = await berth.homeId()
    const mine = (await containersOf(localDocker(), homeId)).filter((c) => c.Labels['berth.session'] === s.id)
    expect(mine.length).toBe(1)
    const unknown = await berth.run(['restart', 'nope'])
    expect(unknown.code).toBe(3)
    await berth.json(['finish', 'rs'])
    const finished = await berth.run(['restart', 'rs'])
    expect(finished.code).toBe(1)
    expect(finished.stderr).toContain('finished')
  })

  it('restart keeps the views: the same tmux sessions, with fresh shells', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'viewed'])
    await berth.run(['exec', 'viewed', '--', 'sh', '-c', "tmux -L berth new-session -d -s editor && tmux -L berth new-session -d -s logs && tmux -L berth send-keys -t editor 'export X=old' Enter"])
    await berth.json(['restart', 'viewed'])
    const r = await berth.run(['exec', 'viewed', '--', 'sh', '-c', `tmux -L berth ls -F '#{session_name}' | sort; tmux -L berth send-keys -t editor 'echo "x=$X" > /tmp/x' Enter; sleep 0.7; cat /tmp/x`])
    expect(r.stdout).toBe('editor\nlogs\nx=\n')
    await berth.json(['finish', s.id])
  })

  it('makes named snapshots while pauses and commands race them: each waits its turn and nothing wedges', { timeout: 600_000 }, async () => {
    // A named snapshot freezes the container for its commit, as a pause freezes it: a command
    // starting at that moment used to freeze with it and hold the engine on the container for good.
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'racer'])
    for (let round = 1; round <= 3; round++) {
      let stop = false
      const refusals: string[] = []
      const loops = [1, 2].map(async () => {
        while (!stop) {
          const r = await berth.run(['exec', 'racer', '--', 'true'], { timeoutMs: 60_000 })
          if (r.code !== 0) refusals.push(r.stderr.trim())
        }
      })
      await sleep(200 + round * 150)
      const t0 = Date.now()
      const [snap, paused] = await Promise.all([
        berth.json(['snapshot', 'create', 'racer', '--name', `race${round}`], { timeoutMs: 180_000 }),
        sleep((round * 137) % 400).then(() => berth.json(['pause', 'racer', '--wait'], { timeoutMs: 180_000 })),
      ])
      stop = true
      await Promise.all(loops)
      expect(Date.now() - t0).toBeLessThan(120_000)
      expect(paused).toMatchObject({ paused: true, durable: true })
      expect(['disk', 'memory+disk']).toContain(snap.kind)
      // a command that met the snapshot or the pause was told why; none hung (each had a minute)
      for (const why of refusals) expect(why).toMatch(/is pausing|is being snapshotted|is being checkpointed|is paused|is pausing; reattach/)
      // the snapshot happened wholly before the pause began, or after the pause was done
      const events: Array<{ kind: string; to: string | null; detail: Record<string, unknown> }> = await berth.json(['session', 'events', 'racer'])
      const at = (f: (e: (typeof events)[number]) => boolean) => events.map((e, i) => (f(e) ? i : -1)).filter((i) => i >= 0).pop() ?? -1
      const snapshotAt = at((e) => e.kind === 'snapshot' && e.detail.snapshot === snap.id)
      const pausingAt = at((e) => e.to === 'pausing')
      const pausedAt = at((e) => e.to === 'paused')
      expect(snapshotAt).toBeGreaterThanOrEqual(0)
      expect(snapshotAt < pausingAt || snapshotAt > pausedAt, `snapshot at ${snapshotAt}, pausing at ${pausingAt}, paused at ${pausedAt}`).toBe(true)
      // after the pause, its checkpoint; before it, a live capture (memory, or the reason it has none)
      if (snapshotAt > pausedAt) expect(snap.kind).toBe('memory+disk')
      else expect(snap.kind === 'memory+disk' || typeof snap.memoryNote === 'string').toBe(true)
      expect(await berth.json(['resume', 'racer'])).toMatchObject({ resumed: true })
      expect((await berth.run(['exec', 'racer', '--', 'echo', 'alive'])).stdout).toBe('alive\n')
    }
    const info = await localDocker().getContainer(`berth-${s.id}`).inspect()
    expect(info.State).toMatchObject({ Running: true, Paused: false })
    await berth.json(['finish', 'racer'])
  })

  it('lists paused sessions older than staleAfterDays for clean-up, and never deletes them', async () => {
    const s = await berth.json(['session', 'create', '--image', image, '--name', 'idle-one'])
    await berth.json(['pause', s.id, '--wait'])
    expect((await berth.json(['session', 'stale'])).sessions).toEqual([])
    await berth.json(['settings', 'set', 'staleAfterDays', '0.00002'])
    await sleep(2500)
    const stale = await berth.json(['session', 'stale'])
    expect(stale.days).toBe(0.00002)
    expect(stale.sessions.map((x: { id: string }) => x.id)).toEqual([s.id])
    const human = await berth.run(['session', 'stale'])
    expect(human.stdout).toContain('idle-one')
    expect(human.stdout).toContain('berth finish ID')
    // listed, never removed
    await sleep(1000)
    expect((await berth.json(['session', 'show', s.id])).state).toBe('paused')
    const paused = await berth.json(['session', 'ls', '--state', 'paused', '--server', 'local'])
    expect(paused.map((x: { id: string }) => x.id)).toContain(s.id)
    await berth.json(['settings', 'set', 'staleAfterDays', '14'])
    await berth.json(['finish', s.id])
  })
})
