// Pausing sessions on the office server, reached only over ssh: memory survives there too, and a
// pause completes on the server even when the laptop's connection is cut half way.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectOrStart } from '../../src/main/doors/control-client'
import { BerthHome, officeDocker, ROOT, sleep, until } from '../support/berth'
import { killAll, PrivateSshd, sshdChildrenServing } from '../support/sshd'
import { testHost } from '../support/testhost'
import { counter, counterAtLeast, startViews, typeInView, viewShows } from '../support/views'

/** `docker checkpoint ls` on the office engine, read on the server itself (not through Berth). */
function officeCheckpoints(container: string): string[] {
  const out = execFileSync('docker', ['-H', `unix://${testHost().officeSocket}`, 'checkpoint', 'ls', container], { encoding: 'utf8' })
  return out.split('\n').slice(1).map((l) => l.trim()).filter(Boolean)
}

describe('pause and resume on the office server', () => {
  const berth = new BerthHome('pause-office')
  const sshd = new PrivateSshd(23000 + Math.floor(Math.random() * 900))
  const base = testHost().baseImage

  afterAll(async () => {
    await berth.cleanup()
    sshd.cleanup()
  })

  it('keeps memory on the office server: a view variable and a counter continue after resume', async () => {
    await berth.addOffice()
    const s = await berth.json(['session', 'create', '--server', 'office', '--image', base])
    await startViews(berth, s.id, { counter: true })
    await typeInView(berth, s.id, 'OFFICE_VAR=remote-$((6*7))')
    const before = await counterAtLeast(berth, s.id, 25)
    const r = await berth.json(['pause', s.id, '--wait'])
    expect(r).toMatchObject({ paused: true, mode: 'memory', durable: true })
    const info = await officeDocker().getContainer(s.containerId).inspect()
    expect(info.State.Running).toBe(false)
    const back = await berth.json(['resume', s.id])
    expect(back).toMatchObject({ resumed: true, mode: 'memory' })
    expect(await counter(berth, s.id)).toBeGreaterThanOrEqual(before)
    await typeInView(berth, s.id, 'echo "office=$OFFICE_VAR"')
    await viewShows(berth, s.id, 'office=remote-42')
    expect(await berth.json(['session', 'show', s.id])).toMatchObject({ server: 'office', state: 'running', route: s.route })
  })

  it('completes a pause on the server when the connection is cut half way, and reconciles on the next contact', async () => {
    await sshd.start()
    await berth.addOffice('cut', sshd)
    const s = await berth.json(['session', 'create', '--server', 'cut', '--image', base])
    await startViews(berth, s.id)
    await typeInView(berth, s.id, 'CUT_VAR=made-it')
    const daemon = berth.daemonPid()!
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    try {
      await c.call('events.subscribe', { names: ['session.changed'] })
      let cut: Promise<number[]> | undefined
      c.on('session.changed', (x) => {
        if (x.id !== s.id || x.state !== 'pausing' || cut) return
        // the lid closes faster than expected: the sshd child serving Berth dies, and the server
        // stays out of reach for a while (the listener is down too)
        cut = (async () => {
          await sleep(300)
          const children = sshdChildrenServing(daemon, sshd.port)
          killAll(children)
          await sshd.stop()
          return children
        })()
      })
      const pausing = c.call('session.pause', { id: s.id, wait: true })
      pausing.catch(() => undefined)
      await until(() => cut, 'the pause to start')
      const killed = await cut!
      expect(killed.length).toBeGreaterThan(0)

      // with Berth cut off, the server finishes the pause on its own: a complete checkpoint, a
      // stopped container
      const office = officeDocker().getContainer(s.containerId)
      await until(async () => (await office.inspect()).State.Status === 'exited', 'the office container to stop', 60_000)
      await until(() => officeCheckpoints(s.containerId).includes('pause-1'), 'the checkpoint to be published on the server', 60_000)
      expect((await berth.json(['session', 'show', s.id])).state).toMatch(/pausing|paused/)

      // the server comes back: the next contact confirms the pause
      await sshd.start()
      const r = await pausing
      expect(r).toMatchObject({ paused: true, mode: 'memory', durable: true, snapshot: `${s.name}.pause:v1` })
    } finally {
      c.close()
    }
    expect(await berth.json(['session', 'show', s.id])).toMatchObject({ state: 'paused', durable: true, mode: 'memory' })
    const events = (await berth.json(['session', 'events', s.id])) as Array<{ kind: string }>
    const kinds = events.map((e) => e.kind)
    expect(kinds).toContain('connection-lost')
    expect(kinds).toContain('connection-restored')
    expect(await berth.json(['resume', s.id])).toMatchObject({ resumed: true, mode: 'memory' })
    await typeInView(berth, s.id, 'echo "cut=$CUT_VAR"')
    await viewShows(berth, s.id, 'cut=made-it')
  })
})
