// A dead server does not take its sessions with it: a laptop session keeps a replica on the office
// server; when the laptop's engine dies (kill -9 of a private dockerd, this Berth home's `local`),
// `resume --on office` brings it back there with its files, on the same route and ssh line, and
// after a memory pause with its memory (the tmux shell and its variable). The engine coming back does not run a second copy:
// its container is a stale copy, listed and removed by `replica clean`. A running session's seals
// are replicated too, and a replica whose target stops answering is reported as behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, officeDocker, sleep, until } from '../support/berth'
import { PrivateDockerd } from '../support/dockerd'
import { PrivateSshd } from '../support/sshd'
import { testHost } from '../support/testhost'
import { readTmuxVariable, setTmuxVariable } from '../support/views'

const h = testHost()

describe('replicas of laptop sessions on the office server', () => {
  const engine = new PrivateDockerd('172.31.218.1/24')
  const berth = new BerthHome('replicas')
  const env = { DOCKER_HOST: engine.dockerHost }
  const run = (args: string[], timeoutMs = 180_000) => berth.run(args, { env, timeoutMs })
  const json = <T = any>(args: string[], timeoutMs = 180_000) => berth.json<T>(args, { env, timeoutMs })
  const show = (id: string) => json(['session', 'show', id])

  beforeAll(async () => {
    await engine.start()
    engine.loadFrom(h.localSocket, h.tinyImage)
    engine.loadFrom(h.localSocket, h.baseImage)
    await json(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])
  }, 300_000)
  afterAll(async () => {
    await berth.cleanup()
    await engine.stop()
  })

  it('the laptop engine dies: resume --on office brings back its files from the replica; the engine coming back runs no second copy', async () => {
    const s = await json(['session', 'create', '--image', h.tinyImage, '--name', 'kept'])
    expect((await json(['session', 'set', 'kept', '--replicate-to', 'office'])).id).toBe(s.id)
    await run(['exec', 'kept', '--', 'sh', '-c', 'echo ws > /workspace/w; mkdir -p /opt/app && echo layer > /opt/app/l'])
    const before = await show(s.id)
    expect((await json(['pause', 'kept', '--wait', '--no-memory'])).mode).toBe('disk')

    // the replica follows the durable pause in the background
    const replicated = await until(async () => {
      const x = await show(s.id)
      return x.replica?.kind === 'disk' && x.replica.behindSeconds === 0 && !x.replica.failure ? x.replica : undefined
    }, 'the replica on office', 180_000)
    expect(replicated.server).toBe('office')
    const listed = await json(['replica', 'ls', 'kept'])
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ server: 'office', status: 'current', kind: 'disk', source: 'local', generation: 0 })

    // the laptop's engine dies
    await engine.kill9()
    const t0 = Date.now()
    const out = await json(['resume', 'kept', '--on', 'office'])
    expect(out).toMatchObject({ fromReplica: true, from: 'local', to: 'office', memory: false, lost: null, resumed: true })
    expect(Date.now() - t0).toBeLessThan(60_000)
    expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'office', state: 'running' })
    expect(out.session.sshLine).toBe(before.sshLine)
    const files = await run(['exec', 'kept', '--', 'sh', '-c', 'cat /workspace/w /opt/app/l; hostname'])
    expect(files.stdout).toBe(`ws\nlayer\n${s.route}\n`)

    // the laptop engine comes back: its copy is stale (an older generation), never resumed
    await engine.start()
    const stale = await until(async () => {
      const l = await json(['replica', 'ls', 'kept'])
      return l.find((r: any) => r.status === 'stale' && r.server === 'local')
    }, 'the stale copy to be listed', 60_000)
    expect(stale).toMatchObject({ generation: 0, sessionGeneration: 1 })
    await sleep(6000)
    const left = await engine.docker().listContainers({ all: true, filters: { label: [`berth.session=${s.id}`] } })
    expect(left).toHaveLength(1)
    expect(left[0]!.State).not.toBe('running')
    expect((await show(s.id))).toMatchObject({ state: 'running', server: 'office' })
    expect((await officeDocker().listContainers({ filters: { label: [`berth.session=${s.id}`] } })).length).toBe(1)

    const cleaned = await json(['replica', 'clean', 'kept'])
    expect(cleaned.removed).toHaveLength(1)
    expect(await engine.docker().listContainers({ all: true, filters: { label: [`berth.session=${s.id}`] } })).toHaveLength(0)
    expect(await json(['replica', 'ls', 'kept'])).toEqual([])
    await json(['finish', 'kept'])
  }, 600_000)

  it('after a memory pause the replica holds its memory: the laptop engine dies, resume --on office brings back the tmux shell and its variable', async () => {
    const s = await json(['session', 'create', '--image', h.baseImage, '--name', 'mem'])
    await json(['session', 'set', 'mem', '--replicate-to', 'office'])
    await setTmuxVariable(berth, s.id, 'through-the-replica')
    await run(['exec', 'mem', '--', 'sh', '-c', 'echo mem-ws > /workspace/w'])
    expect(await json(['pause', 'mem', '--wait'])).toMatchObject({ paused: true, mode: 'memory', durable: true })

    // the memory checkpoint follows the pause to office, with the files
    const replicated = await until(async () => {
      const x = await show(s.id)
      return x.replica?.kind === 'memory' && x.replica.behindSeconds === 0 && !x.replica.failure ? x.replica : undefined
    }, 'the memory replica on office', 180_000)
    expect(replicated.server).toBe('office')
    expect((await json(['replica', 'ls', 'mem']))[0]).toMatchObject({ server: 'office', status: 'current', kind: 'memory', source: 'local' })

    await engine.kill9()
    const out = await json(['resume', 'mem', '--on', 'office'])
    expect(out).toMatchObject({ fromReplica: true, from: 'local', to: 'office', memory: true, lost: null, resumed: true })
    expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'office', state: 'running' })
    // the same shell, still holding what was only ever in its memory
    expect(await readTmuxVariable(berth, s.id)).toBe('v=through-the-replica')
    expect((await run(['exec', 'mem', '--', 'cat', '/workspace/w'])).stdout).toBe('mem-ws\n')

    await engine.start()
    await until(async () => (await json(['replica', 'ls', 'mem'])).find((r: any) => r.status === 'stale' && r.server === 'local'), 'the stale copy to be listed', 60_000)
    await until(async () => ((await json(['replica', 'clean', 'mem'])).removed.length === 1 ? true : undefined), 'the stale copy to be removed', 60_000)
    await json(['finish', 'mem'])
  }, 600_000)

  it("a running session's seals are replicated; a replica whose target stops answering is reported as behind", async () => {
    const sshd = new PrivateSshd(25000 + Math.floor(Math.random() * 900))
    await sshd.start()
    try {
      await json(['server', 'add', 'office-b', sshd.url, '--identity', h.officeIdentity, '--accept-host-key', sshd.fingerprint()])
      await json(['settings', 'set', 'replicateTo', 'office-b'])
      await json(['settings', 'set', 'sealMinutes', '0.05'])
      const s = await json(['session', 'create', '--image', h.tinyImage, '--name', 'sealed'])
      await run(['exec', 'sealed', '--', 'sh', '-c', 'echo one > /workspace/one'])
      const first = await until(async () => {
        const x = await show(s.id)
        return x.replica?.server === 'office-b' && x.replica.kind === 'disk' && !x.replica.failure ? x.replica : undefined
      }, 'a seal to be replicated', 120_000)
      expect(Date.parse(first.at)).toBeGreaterThan(Date.parse(s.createdAt))

      // the target stops answering: seals go on, the replica falls behind and says why
      await sshd.stop()
      const behind = await until(async () => {
        const x = await show(s.id)
        return x.replica && x.replica.behindSeconds > 0 && x.replica.failure ? x.replica : undefined
      }, 'the replica to be reported behind', 120_000)
      expect(behind.at).toBe(first.at)
      const listed = (await json(['replica', 'ls', 'sealed']))[0]
      expect(listed.behindSeconds).toBeGreaterThan(0)
      expect(listed.failure).toBeTruthy()
      const human = await run(['session', 'show', 'sealed'])
      expect(human.stdout).toMatch(/replica:\s+disk copy on office-b .* behind/)

      // back: it catches up by itself
      await sshd.start()
      await until(async () => {
        const x = await show(s.id)
        return x.replica && !x.replica.failure && Date.parse(x.replica.at) > Date.parse(first.at) ? x.replica : undefined
      }, 'the replica to catch up', 180_000)
      await json(['settings', 'set', 'sealMinutes', '0'])
      await json(['settings', 'set', 'replicateTo', 'none'])
      await json(['finish', 'sealed'])
    } finally {
      await sshd.stop()
      sshd.cleanup()
    }
  }, 600_000)
})
