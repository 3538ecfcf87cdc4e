// The lid closes, the laptop dies: a durable pause survives the daemon being killed at once, and a
// pause interrupted half way is reconciled on the next start, never lost.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectOrStart } from '../../src/main/doors/control-client'
import { BerthHome, BIN, ROOT, until } from '../support/berth'
import { testHost } from '../support/testhost'
import { startViews, typeInView, viewShows } from '../support/views'

interface Ev {
  kind: string
  from: string | null
  to: string | null
  detail: Record<string, unknown>
}

describe('pauses that survive a crash', () => {
  const berth = new BerthHome('pause-crash')
  const base = testHost().baseImage

  afterAll(() => berth.cleanup())

  it('pause --all --wait, then kill -9 the daemon at once: a new daemon shows all three paused and resumes each with its state', async () => {
    const names = ['alpha', 'beta', 'gamma']
    const ids: string[] = []
    for (const name of names) {
      const s = await berth.json(['session', 'create', '--image', base, '--name', name])
      await startViews(berth, s.id)
      await typeInView(berth, s.id, `MY_NAME=${name}-kept`)
      ids.push(s.id)
    }
    const pid = berth.daemonPid()!
    // (a deadline past the sleep window: this test is about the crash, not the window)
    const r = await berth.json(['pause', '--all', '--wait', '--deadline', '120'])
    process.kill(pid, 'SIGKILL')
    expect(r.results).toHaveLength(3)
    for (const x of r.results) expect(x.result).toMatchObject({ paused: true, mode: 'memory', durable: true })

    // a new daemon starts with the next verb
    const list = (await berth.json(['session', 'ls'])) as Array<{ id: string; state: string; durable: boolean; mode: string }>
    expect(berth.daemonPid()).not.toBe(pid)
    for (const id of ids) expect(list.find((s) => s.id === id)).toMatchObject({ state: 'paused', durable: true, mode: 'memory' })
    for (const [i, id] of ids.entries()) {
      expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory' })
      await typeInView(berth, id, 'echo "name=$MY_NAME"')
      await viewShows(berth, id, `name=${names[i]}-kept`)
    }
  })

  it('kill -9 in the middle of a pause: the next start reconciles to paused or running, and the events log says what happened', async () => {
    const s = await berth.json(['session', 'create', '--image', base])
    await startViews(berth, s.id)
    await typeInView(berth, s.id, 'CRASH_VAR=survives')
    const pid = berth.daemonPid()!
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    let pausing = false
    const seen = new Promise<void>((resolve) => {
      c.on('session.changed', (x) => {
        if (x.id === s.id && x.state === 'pausing' && !pausing) {
          pausing = true
          // the lid closed faster than expected: the daemon dies in the middle of the pause
          process.kill(pid, 'SIGKILL')
          resolve()
        }
      })
    })
    await c.call('events.subscribe', { names: ['session.changed'] })
    const pause = spawn(process.execPath, [BIN, 'pause', s.id, '--json'], { env: berth.env(), stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    pause.stdout.on('data', (d: Buffer) => (out += d.toString()))
    const code = await new Promise<number | null>((r) => pause.on('close', r))
    await seen
    c.close()
    expect(code).toBe(1)
    expect(out).toContain('"error"')

    // the next start reconciles: paused or running, never stuck, never lost
    const settled = await until(async () => {
      const x = await berth.json(['session', 'show', s.id])
      return x.state === 'paused' || x.state === 'running' ? x : undefined
    }, 'the interrupted pause to be reconciled', 90_000)
    expect(berth.daemonPid()).not.toBe(pid)
    const events = (await berth.json(['session', 'events', s.id])) as Ev[]
    const recovery = events.find((e) => e.kind === 'recovery')
    expect(recovery?.detail).toMatchObject({ state: 'pausing' })
    const after = events.slice(events.indexOf(recovery!))
    expect(after.some((e) => e.kind === 'transition' && e.from === 'pausing' && (e.to === 'paused' || e.to === 'running'))).toBe(true)
    if (settled.state === 'paused') {
      expect(settled.mode).toBe('memory')
      await until(async () => (await berth.json(['session', 'show', s.id])).durable, 'the reconciled pause to be durable')
      expect(await berth.json(['resume', s.id])).toMatchObject({ resumed: true, mode: 'memory' })
    }
    await typeInView(berth, s.id, 'echo "crash=$CRASH_VAR"')
    await viewShows(berth, s.id, 'crash=survives')
  })
})
