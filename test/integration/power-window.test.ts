// The OS's sleep window against what the running sessions need: `berth power doctor` tells a user
// whether their sessions' memory fits before logind suspends anyway, `install-hook --logind` raises
// the window to what they need (said first, written only with the flag), and without it the hook's
// install warns. A session whose memory does not fit stays frozen, and is written once there is time.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { untilFrozenMemoryWritten } from '../support/pauses'
import { testHost } from '../support/testhost'

const DROP_IN = '/etc/systemd/logind.conf.d/berth.conf'
const h = testHost()

describe('the sleep window', () => {
  const berth = new BerthHome('power-window')
  const tmp = mkdtempSync(join(tmpdir(), 'berth-window-'))
  const hadDropIn = existsSync(DROP_IN)

  afterAll(async () => {
    if (!hadDropIn) rmSync(DROP_IN, { force: true })
    rmSync(tmp, { recursive: true, force: true })
    await berth.cleanup()
  })

  async function holding(mib: number): Promise<string> {
    const s = await berth.json(['session', 'create', '--image', h.tinyImage])
    await berth.run(['exec', s.id, '--', 'sh', '-c', `(dd if=/dev/urandom bs=${mib}M count=1 | sleep 3600) </dev/null >/dev/null 2>&1 &`])
    return s.id
  }

  it('power doctor weighs the window against the sessions, and install-hook --logind raises it to what they need', async () => {
    expect((await berth.json(['server', 'test', 'local'])).memoryPause.available).toBe(true)
    const empty = await berth.json(['power', 'doctor'])
    expect(empty).toMatchObject({ platform: 'linux', needMs: 0, sessions: [] })
    expect(empty.window.seconds).toBeGreaterThan(0)
    expect(empty.deadlineMs).toBe(Math.round(empty.window.seconds * 1000) - 500)

    const ids = [await holding(192), await holding(192)]
    // the meter's first sample gives the plan the sessions' sizes
    await until(async () => {
      const d = await berth.json(['power', 'doctor'])
      return d.sessions.every((s: { memoryBytes: number | null }) => (s.memoryBytes ?? 0) > 150 * (1 << 20)) ? d : undefined
    }, 'the meter to sample the sessions', 30_000)
    // a pause deadline of one second: the window is too short for either memory
    await berth.json(['settings', 'set', 'pauseDeadlineSeconds', '1'])
    const short = await berth.json(['power', 'doctor'])
    expect(short).toMatchObject({ deadlineMs: 1000, fits: false })
    expect(short.sessions.map((s: { id: string; plan: string }) => s.plan)).toEqual(['frozen-then-memory', 'frozen-then-memory'])
    expect(short.needMs).toBeGreaterThan(1000)
    const human = await berth.run(['power', 'doctor'])
    expect(human.stdout).toMatch(/fits:\s+no/)
    expect(human.stdout).toContain('frozen, memory written after')

    // install-hook without --logind writes the hook only, and warns
    const warned = await berth.run(['power', 'install-hook', '--dir', tmp])
    expect(warned.code).toBe(0)
    expect(warned.stderr).toMatch(/warning: .* pausing the running sessions needs about [\d.]+ s; run again with --logind/)
    expect(existsSync(DROP_IN) && readFileSync(DROP_IN, 'utf8').includes('berth')).toBe(hadDropIn && readFileSync(DROP_IN, 'utf8').includes('berth'))

    // with --logind: the drop-in is shown first, then written, and logind's window follows it
    await berth.json(['settings', 'set', 'pauseDeadlineSeconds', 'null'])
    const raised = await berth.run(['power', 'install-hook', '--dir', tmp, '--logind'])
    expect(raised.code).toBe(0)
    expect(raised.stdout).toMatch(/^writing \/etc\/systemd\/logind\.conf\.d\/berth\.conf:\n/)
    const seconds = Number(/InhibitDelayMaxSec=(\d+)/.exec(readFileSync(DROP_IN, 'utf8'))![1])
    expect(raised.stdout).toContain(`InhibitDelayMaxSec=${seconds}`)
    expect(seconds * 1000).toBeGreaterThan(short.needMs)
    const after = await berth.json(['power', 'doctor'])
    expect(after.window).toMatchObject({ seconds, source: 'logind.conf' })
    expect(after.deadlineMs).toBe(seconds * 1000 - 500)
    for (const id of ids) await berth.json(['finish', id])
  })

  it('a session whose memory does not fit stays frozen, its files durable, and its memory is written once there is time', async () => {
    const id = await holding(384)
    // the window closes before its dump could start: frozen, memory kept, not durable yet
    const r = await berth.run(['pause', '--all', '--wait', '--deadline', '1', '--json'])
    expect(r.code).toBe(5)
    const [entry] = JSON.parse(r.stdout).results
    expect(entry.result).toMatchObject({ paused: true, mode: 'frozen', durable: false, pending: 'memory' })
    expect(entry.result.frozenMs).toBeLessThan(1500)
    expect(await berth.json(['session', 'show', id])).toMatchObject({ state: 'paused', mode: 'frozen', durable: false })
    const human = await berth.run(['pause', '--all', '--wait', '--deadline', '1'])
    expect(human.stdout).toMatch(/no running sessions to pause/)
    // once the lid-close window is long past, the next contact writes its memory
    await untilFrozenMemoryWritten(berth, id)
    const events = (await berth.json(['session', 'events', id])) as Array<{ kind: string }>
    expect(events.map((e) => e.kind)).toEqual(expect.arrayContaining(['pause-pending', 'pause-completed', 'pause-durable']))
    expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory' })
    await berth.json(['finish', id])
  })
})
