// Fork: K independent sessions from one capture, each with the memory of the moment it was taken;
// each fork succeeds or fails on its own. Memory snapshots: named ones of a paused session, a
// rewind back to one, and a test restore.
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome } from '../support/berth'
import { testHost } from '../support/testhost'
import { readTmuxVariable, setTmuxVariable } from '../support/views'

const h = testHost()

describe('fork', () => {
  const berth = new BerthHome('fork')
  afterAll(() => berth.cleanup())

  it('makes K sessions from one memory capture; a fork that fails does not take the others down', async () => {
    const origin = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'origin'])
    await berth.run(['exec', 'origin', '--', 'sh', '-c', 'echo shared > /workspace/s'])
    await setTmuxVariable(berth, origin.id, 'forked-memory')
    // the injected failure: the second fork's name is taken by a live session
    await berth.json(['session', 'create', '--image', h.tinyImage, '--name', 'fk-2'])

    const r = await berth.run(['fork', 'origin', '--name', 'fk', '--count', '3', '--json'], { timeoutMs: 600_000 })
    expect(r.code).toBe(1)
    const out = JSON.parse(r.stdout)
    expect(out.capture).toMatchObject({ kind: 'memory+disk', reason: 'fork', sessionId: origin.id })
    expect(out).toMatchObject({ succeeded: 2, failed: 1 })
    const [f1, f2, f3] = out.forks
    expect(f1).toMatchObject({ ok: true, index: 1, memory: true, session: { name: 'fk-1', state: 'running' } })
    expect(f2).toMatchObject({ ok: false, index: 2, name: 'fk-2', error: { code: 'conflict' } })
    expect(f2.error.message).toContain('already named fk-2')
    expect(f3).toMatchObject({ ok: true, index: 3, memory: true, session: { name: 'fk-3', state: 'running' } })

    const ids = [origin.id, f1.session.id, f3.session.id]
    expect(new Set(ids).size).toBe(3)
    expect(new Set([origin.route, f1.session.route, f3.session.route]).size).toBe(3)
    for (const id of ids) {
      expect(await readTmuxVariable(berth, id)).toBe('v=forked-memory')
      expect((await berth.run(['exec', id, '--', 'cat', '/workspace/s'])).stdout).toBe('shared\n')
    }
    // the origin went on as it was, and the forks are independent of it and of each other
    expect((await berth.json(['session', 'show', 'origin'])).state).toBe('running')
    await berth.run(['exec', 'fk-1', '--', 'sh', '-c', 'echo only-in-fk-1 > /workspace/s'])
    expect((await berth.run(['exec', 'fk-3', '--', 'cat', '/workspace/s'])).stdout).toBe('shared\n')
    expect((await berth.run(['exec', 'origin', '--', 'cat', '/workspace/s'])).stdout).toBe('shared\n')
    // the capture is kept while forks depend on it
    expect((await berth.json(['snapshot', 'show', out.capture.id])).pinned).toBe(true)
    const failedForks = (await berth.json(['session', 'ls', '--state', 'failed'])) as unknown[]
    expect(failedForks).toEqual([])
  })

  it('keeps memory in a named snapshot of a paused session, rewinds to it, and proves it with a test restore', async () => {
    await berth.json(['pause', 'origin', '--wait'])
    const snap = await berth.json(['snapshot', 'create', 'origin', '--name', 'mem'])
    expect(snap).toMatchObject({ id: 'mem:v1', kind: 'memory+disk' })
    // while paused, the pause's own checkpoint is listed as an automatic snapshot
    const listed = await berth.json(['snapshot', 'ls', '--session', 'origin'])
    expect(listed.items.some((s: { reason: string; kind: string }) => s.reason === 'pause' && s.kind === 'memory+disk')).toBe(true)
    await berth.json(['resume', 'origin'])
    // resumed: it stays listed, as the pause the session went on from (nothing is made from it now)
    const after = await berth.json(['snapshot', 'ls', '--session', 'origin'])
    const spent = after.items.filter((s: { reason: string }) => s.reason === 'pause')
    expect(spent.length).toBeGreaterThan(0)
    for (const s of spent) expect(s.note).toMatch(/the session resumed from it/)

    await berth.run(['exec', 'origin', '--', 'sh', '-c', `tmux send-keys -t work 'export KEPT=changed-later' Enter; echo later > /workspace/s; sleep 0.5`])
    expect(await readTmuxVariable(berth, 'origin')).toBe('v=changed-later')
    const rw = await berth.json(['rewind', 'origin', '--to', 'mem:v1'])
    expect(rw).toMatchObject({ memory: true, to: { id: 'mem:v1' }, kept: { reason: 'pre-rewind' } })
    expect(await readTmuxVariable(berth, 'origin')).toBe('v=forked-memory')
    expect((await berth.run(['exec', 'origin', '--', 'cat', '/workspace/s'])).stdout).toBe('shared\n')

    const t = await berth.json(['snapshot', 'test', 'mem:v1'])
    expect(t).toMatchObject({ memory: true, snapshot: { id: 'mem:v1', testRestored: true } })
  })
})
