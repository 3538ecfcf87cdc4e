// The office server as the source that goes away: its sessions keep a replica on the laptop, and
// `resume --on local` brings them back from it when the office does not answer within 3 s. Once
// with its sshd killed (a paused session: nothing lost), once behind a partition where packets vanish (a running session, from its last seal, and the
// answer says what was lost). When the office answers again, its copy is stale: stopped, never
// resumed, listed for clean-up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, officeDocker, until } from '../support/berth'
import { Partition } from '../support/netns'
import { PrivateSshd } from '../support/sshd'
import { testHost } from '../support/testhost'

const h = testHost()

describe('replicas of office sessions on the laptop', () => {
  const berth = new BerthHome('replicas-faults')
  const json = <T = any>(args: string[], timeoutMs = 180_000) => berth.json<T>(args, { timeoutMs })
  const run = (args: string[]) => berth.run(args, { timeoutMs: 180_000 })
  const show = (id: string) => json(['session', 'show', id])
  const officeCopies = async (id: string) => await officeDocker().listContainers({ all: true, filters: { label: [`berth.session=${id}`] } })

  beforeAll(async () => {
    await json(['settings', 'set', 'replicateTo', 'local'])
  })
  afterAll(() => berth.cleanup())

  it('its sshd killed: resume --on local brings back a paused session from its replica, nothing lost', async () => {
    const sshd = new PrivateSshd(25000 + Math.floor(Math.random() * 900))
    await sshd.start()
    try {
      await json(['server', 'add', 'far', sshd.url, '--identity', h.officeIdentity, '--accept-host-key', sshd.fingerprint()])
      const s = await json(['session', 'create', '--image', h.tinyImage, '--server', 'far', '--name', 'remote'])
      await run(['exec', 'remote', '--', 'sh', '-c', 'echo from-the-office > /workspace/w'])
      const paused = await json(['pause', 'remote', '--wait', '--no-memory'])
      expect(paused.mode).toBe('disk')
      const rep = await until(async () => {
        const x = await show(s.id)
        return x.replica?.behindSeconds === 0 && !x.replica.failure ? x.replica : undefined
      }, 'the replica on the laptop', 240_000)
      expect(rep).toMatchObject({ server: 'local', kind: 'disk' })

      await sshd.stop()
      const t0 = Date.now()
      const out = await json(['resume', 'remote', '--on', 'local'])
      expect(out).toMatchObject({ fromReplica: true, from: 'far', to: 'local', memory: false, lost: null })
      expect(Date.now() - t0).toBeLessThan(60_000)
      expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'local', state: 'running' })
      expect((await run(['exec', 'remote', '--', 'cat', '/workspace/w'])).stdout).toBe('from-the-office\n')

      // the office answers again: its copy stays stopped and is listed, never resumed
      await sshd.start()
      const stale = await until(async () => (await json(['replica', 'ls', 'remote'])).find((r: any) => r.status === 'stale'), 'the stale copy to be listed', 60_000)
      expect(stale).toMatchObject({ server: 'far', generation: 0, sessionGeneration: 1 })
      const left = await officeCopies(s.id)
      expect(left).toHaveLength(1)
      expect(left[0]!.State).not.toBe('running')
      const cleaned = await until(async () => {
        const r = await json(['replica', 'clean', 'remote'])
        return r.removed.length === 1 ? r : undefined
      }, 'the stale copy to be removed', 60_000)
      expect(cleaned.removed[0]).toMatchObject({ server: 'far' })
      expect(await officeCopies(s.id)).toHaveLength(0)
      await json(['finish', 'remote'])
    } finally {
      await sshd.stop()
      sshd.cleanup()
    }
  }, 600_000)

  it('behind a partition: a running session comes back from its last seal, says what was lost, and the copy the office kept running is stopped when it answers again', async () => {
    const part = new Partition(18)
    part.up()
    const sshd = new PrivateSshd(2318, { address: part.inner, netns: part.name })
    await sshd.start()
    try {
      await json(['server', 'add', 'far-part', sshd.url, '--identity', h.officeIdentity, '--accept-host-key', sshd.fingerprint()])
      await json(['settings', 'set', 'sealMinutes', '0.05'])
      const s = await json(['session', 'create', '--image', h.tinyImage, '--server', 'far-part', '--name', 'cut'])
      await run(['exec', 'cut', '--', 'sh', '-c', 'echo sealed > /workspace/a'])
      const rep = await until(async () => {
        const x = await show(s.id)
        return x.replica && !x.replica.failure && Date.parse(x.replica.at) > Date.parse(s.createdAt) + 1000 ? x.replica : undefined
      }, 'a seal of it to be replicated to the laptop', 180_000)
      expect(rep).toMatchObject({ server: 'local', kind: 'disk' })
      await json(['settings', 'set', 'sealMinutes', '0'])
      // a copy being replaced when the source goes is not whole: wait for the last one to land
      await until(async () => {
        const l = await json(['replica', 'ls', 'cut'])
        return l.length === 1 && l[0].status === 'current' && l[0].behindSeconds === 0 && !l[0].failure ? l : undefined
      }, 'the last seal to be replicated', 120_000)

      part.cut()
      const out = await json(['resume', 'cut', '--on', 'local'])
      expect(out).toMatchObject({ fromReplica: true, from: 'far-part', to: 'local', memory: false })
      expect(out.lost).toMatch(/^from the seal of \d\d:\d\d, .* before far-part stopped answering$/)
      expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'local', state: 'running' })
      expect((await run(['exec', 'cut', '--', 'cat', '/workspace/a'])).stdout).toBe('sealed\n')
      expect((await localDocker().listContainers({ filters: { label: [`berth.session=${s.id}`] } })).length).toBe(1)

      // the office kept running its copy all along: once it answers, Berth stops it
      part.heal()
      await until(async () => {
        const c = await officeCopies(s.id)
        return c.length === 1 && c[0]!.State !== 'running' ? c : undefined
      }, "the office's copy to be stopped", 90_000)
      expect((await json(['replica', 'ls', 'cut']))[0]).toMatchObject({ status: 'stale', server: 'far-part' })
      expect((await show(s.id))).toMatchObject({ state: 'running', server: 'local' })
      await json(['replica', 'clean'])
      await json(['finish', 'cut'])
    } finally {
      await sshd.stop()
      sshd.cleanup()
      part.down()
    }
  }, 600_000)
})
