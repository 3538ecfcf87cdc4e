// A snapshot of a running session keeps its memory and the session keeps running: one brief freeze
// (its disk committed and its processes dumped with CRIU's leave-running), whose length the result
// tells. A session started from that snapshot goes on from the snapshot's moment.
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { testHost } from '../support/testhost'
import { counter, counterAtLeast, readTmuxVariable, startViews, typeInView } from '../support/views'

const h = testHost()

describe('snapshots of a running session', () => {
  const berth = new BerthHome('live-snap')
  afterAll(() => berth.cleanup())

  it('keep its memory while it keeps counting; a session started from the snapshot counts on from there', { timeout: 600_000 }, async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'live'])
    await startViews(berth, s.id, { counter: true })
    await typeInView(berth, s.id, 'export KEPT=live-memory')
    const before = await counterAtLeast(berth, s.id, 3)

    const snap = await berth.json(['snapshot', 'create', 'live', '--name', 'live-mem'], { timeoutMs: 300_000 })
    expect(snap).toMatchObject({ id: 'live-mem:v1', kind: 'memory+disk', reason: 'named', sessionId: s.id })
    expect(snap.freezeMs).toBeGreaterThan(0)
    expect(snap.freezeMs).toBeLessThan(30_000)
    const human = await berth.run(['snapshot', 'show', 'live-mem'])
    expect(human.stdout).toMatch(/froze for:\s+\d/)

    // the source never stopped: the same container, still running, still counting
    const after = await berth.json(['session', 'show', 'live'])
    expect(after).toMatchObject({ state: 'running', containerId: s.containerId })
    const a1 = await counter(berth, s.id)
    expect(a1).toBeGreaterThan(before)
    await counterAtLeast(berth, s.id, a1 + 3)
    expect(await readTmuxVariable(berth, s.id)).toBe('v=live-memory')

    // a session from the snapshot starts at the snapshot's value (not at 0, as a cold boot would
    // have no counter at all) and counts on from it, behind the source that never stopped
    const made = await berth.json(['session', 'create', '--from', 'live-mem', '--name', 'resumed'], { timeoutMs: 300_000 })
    expect(made.origin).toMatchObject({ snapshot: 'live-mem:v1', memory: true })
    const first = await counter(berth, made.id)
    const source = await counter(berth, s.id)
    expect(first).toBeGreaterThanOrEqual(before)
    expect(first).toBeLessThan(source)
    await until(async () => ((await counter(berth, made.id)) > first ? true : undefined), 'the restored counter to count on', 30_000)
    expect(await readTmuxVariable(berth, made.id)).toBe('v=live-memory')
    expect((await berth.json(['session', 'show', 'live'])).state).toBe('running')
  })

  it('falls back to the disk and says why where memory cannot be kept', async () => {
    const s = await berth.json(['session', 'create', '--image', h.tinyImage, '--name', 'plain'])
    await berth.json(['server', 'checkpoint', 'local', 'off'])
    try {
      const snap = await berth.json(['snapshot', 'create', 'plain'])
      expect(snap).toMatchObject({ kind: 'disk', sessionId: s.id })
      expect(snap.memoryNote).toContain('memory not kept')
      expect(snap.memoryNote).toContain('turned off')
      const human = await berth.run(['snapshot', 'create', 'plain'])
      expect(human.stdout).toContain('disk only: memory not kept')
    } finally {
      await berth.json(['server', 'checkpoint', 'local', 'auto'])
    }
    expect((await berth.json(['session', 'show', 'plain'])).state).toBe('running')
  })
})
