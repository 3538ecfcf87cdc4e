// The office server as the source that goes away: its sessions keep a replica on the laptop, and
// `resume --on local` brings them back from it when the office does not answer within 3 s. Once
// with its sshd killed (a session paused with its memory: its tmux shell comes back with its
// variable, nothing lost), once behind a partition where packets vanish (a running session, from
// its last seal, and the answer says what was lost). When the office answers again, its copy is
// stale: stopped, never resumed, listed for clean-up. A replica copy cut half way (its target
// behind a partition) is never taken for a whole one, and a later try lands a whole copy.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, officeDocker, until } from '../support/berth'
import { Partition } from '../support/netns'
import { PrivateSshd } from '../support/sshd'
import { testHost } from '../support/testhost'
import { readTmuxVariable, setTmuxVariable } from '../support/views'

const MiB = 1 << 20

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

  it('its sshd killed: resume --on local brings back a session paused with its memory from its replica, nothing lost', async () => {
    const sshd = new PrivateSshd(25000 + Math.floor(Math.random() * 900))
    await sshd.start()
    try {
      await json(['server', 'add', 'far', sshd.url, '--identity', h.officeIdentity, '--accept-host-key', sshd.fingerprint()])
      const s = await json(['session', 'create', '--image', h.baseImage, '--server', 'far', '--name', 'remote'])
      await setTmuxVariable(berth, s.id, 'from-office-memory')
      await run(['exec', 'remote', '--', 'sh', '-c', 'echo from-the-office > /workspace/w'])
      const paused = await json(['pause', 'remote', '--wait'])
      expect(paused).toMatchObject({ mode: 'memory', durable: true })
      const rep = await until(async () => {
        const x = await show(s.id)
        return x.replica?.behindSeconds === 0 && !x.replica.failure ? x.replica : undefined
      }, 'the replica on the laptop', 240_000)
      expect(rep).toMatchObject({ server: 'local', kind: 'memory' })

      await sshd.stop()
      const t0 = Date.now()
      const out = await json(['resume', 'remote', '--on', 'local'])
      expect(out).toMatchObject({ fromReplica: true, from: 'far', to: 'local', memory: true, lost: null })
      expect(Date.now() - t0).toBeLessThan(60_000)
      expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'local', state: 'running' })
      expect((await run(['exec', 'remote', '--', 'cat', '/workspace/w'])).stdout).toBe('from-the-office\n')
      expect(await readTmuxVariable(berth, s.id)).toBe('v=from-office-memory')

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

  it('a replica copy cut half way is never taken for a whole one, and once the link is back the next try lands a whole copy, sending only the rest', async () => {
    const part = new Partition(19)
    part.up()
    const sshd = new PrivateSshd(2319, { address: part.inner, netns: part.name })
    await sshd.start()
    try {
      await json(['server', 'add', 'far-cut', sshd.url, '--identity', h.officeIdentity, '--accept-host-key', sshd.fingerprint()])
      const s = await json(['session', 'create', '--image', h.tinyImage, '--name', 'halfway'])
      await json(['session', 'set', 'halfway', '--replicate-to', 'far-cut'])
      const sum = (await run(['exec', 'halfway', '--', 'sh', '-c', `head -c ${64 * MiB} /dev/urandom > /workspace/big && sha256sum /workspace/big | cut -c1-64`])).stdout.trim()
      expect(sum).toMatch(/^[0-9a-f]{64}$/)
      // the link to far-cut carries 80 Mbit/s: the copy takes seconds, long enough to cut it
      part.slow('80mbit')
      await json(['pause', 'halfway', '--wait', '--no-memory'])

      // what arrived on far-cut so far (its sshd's user keeps a transfer's parts in its state folder)
      const home = execFileSync('getent', ['passwd', 'office'], { encoding: 'utf8' }).split(':')[5]!
      const xfer = join(home, '.local', 'state', 'berth', await berth.homeId(), 'xfer')
      const arrived = () => {
        const dirs = existsSync(xfer) ? readdirSync(xfer).filter((d) => d.startsWith(`rep-${s.id}-`)) : []
        return dirs.reduce((n, d) => n + (existsSync(join(xfer, d, 'bundle.tar')) ? statSync(join(xfer, d, 'bundle.tar')).size : 0), 0)
      }
      const before = await until(() => (arrived() > 16 * MiB ? arrived() : undefined), 'a quarter of the copy to arrive', 120_000)
      expect(before).toBeLessThan(56 * MiB)
      part.cut()

      // the cut is noticed; the copy there is not whole and is never shown as current
      const failed = await until(async () => {
        const l = await json(['replica', 'ls', 'halfway'])
        return l[0]?.failure ? l[0] : undefined
      }, 'the cut copy to be reported', 90_000)
      expect(failed).toMatchObject({ server: 'far-cut', status: 'syncing' })
      // (the cut try, or a retry while the link is down: either way, said as the server unreachable)
      expect(failed.failure).toMatch(/was cut|unreachable/)
      const shown = (await show(s.id)).replica
      expect(shown).toMatchObject({ server: 'far-cut' })
      expect(shown.failure).toBeTruthy()
      for (const c of await officeCopies(s.id)) expect(c.State).not.toBe('running')

      // the link back: the next try lands a whole copy
      part.heal()
      const rep = await until(async () => {
        const r = await json(['replica', 'sync', 'halfway'])
        return r.status === 'current' ? r : undefined
      }, 'the replica to be brought up to date after the cut', 180_000)
      expect(rep).toMatchObject({ server: 'far-cut', status: 'current', kind: 'disk', failure: null })
      // and it went on from where the cut left it: what had arrived was not sent again
      expect(rep.bytes).toBeLessThan(66 * MiB - before)
      const copies = await officeCopies(s.id)
      expect(copies).toHaveLength(1)
      const vol = (await officeDocker().getContainer(copies[0]!.Id).inspect()).Mounts.find((m) => m.Destination === '/workspace')!.Name!
      const there = execFileSync('docker', ['-H', `unix://${h.officeSocket}`, 'run', '--rm', '-v', `${vol}:/w:ro`, h.tinyImage, 'sha256sum', '/w/big'], { encoding: 'utf8' })
      expect(there.slice(0, 64)).toBe(sum)
      await json(['finish', 'halfway'])
    } finally {
      await sshd.stop()
      sshd.cleanup()
      part.down()
    }
  }, 600_000)
})
