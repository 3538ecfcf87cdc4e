// Periodic seals: a running session's disk is sealed without stopping it, savedAt advances, and an
// engine killed with -9 loses no more than the last seal. The engine here is a private dockerd
// (this Berth home's `local` server), so killing it disturbs nobody else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, sleep, until } from '../support/berth'
import { PrivateDockerd } from '../support/dockerd'
import { testHost } from '../support/testhost'

const h = testHost()

describe('periodic seals and a killed engine', () => {
  const engine = new PrivateDockerd('172.31.203.1/24')
  const berth = new BerthHome('seal')
  const env = { DOCKER_HOST: engine.dockerHost }
  const run = (args: string[]) => berth.run(args, { env })
  const json = (args: string[]) => berth.json(args, { env })
  const show = async (id: string) => await json(['session', 'show', id])

  beforeAll(async () => {
    await engine.start()
    engine.loadFrom(h.localSocket, h.tinyImage)
  })
  afterAll(async () => {
    await berth.cleanup()
    await engine.stop()
  })

  it('seals a running session every few seconds without stopping it, and savedAt advances', async () => {
    await json(['settings', 'set', 'sealMinutes', '0.05'])
    const s = await json(['session', 'create', '--image', h.tinyImage, '--name', 'sealed'])
    expect(s.savedAt).toBeNull()
    await run(['exec', 'sealed', '--', 'sh', '-c', 'echo A > /workspace/a; echo A > /etc/a; (while :; do date +%s > /tmp/alive; sleep 1; done) >/dev/null 2>&1 &'])
    const first = await until(async () => (await show('sealed')).savedAt as string | null, 'a first seal', 60_000)
    const second = await until(async () => {
      const at = (await show('sealed')).savedAt as string
      return Date.parse(at) > Date.parse(first) ? at : null
    }, 'savedAt to advance', 60_000)
    expect(Date.parse(second)).toBeGreaterThan(Date.parse(first))
    // it never stopped: the loop started before the seals still runs, in the same container
    const cur = await show('sealed')
    expect(cur).toMatchObject({ state: 'running', containerId: s.containerId })
    const alive = await run(['exec', 'sealed', '--', 'sh', '-c', 'echo $(( $(date +%s) - $(cat /tmp/alive) ))'])
    expect(Number(alive.stdout.trim())).toBeLessThan(5)
    const seals = await json(['snapshot', 'ls', '--session', 'sealed'])
    expect(seals.items.length).toBeGreaterThanOrEqual(2)
    expect(seals.items[0]).toMatchObject({ reason: 'seal', auto: true, kind: 'disk', server: 'local' })
  })

  it('keeps only the last K automatic checkpoints', async () => {
    await json(['settings', 'set', 'keepAutomatic', '2'])
    await until(async () => {
      const seals = await json(['snapshot', 'ls', '--session', 'sealed', '--auto'])
      return seals.items.length === 2 && Date.parse(seals.items[0].createdAt) > Date.now() - 20_000
    }, 'retention to drop older seals', 60_000)
    // what retention dropped is gone from the engine too (a third may be on its way in)
    await until(async () => {
      const vols = await engine.docker().listVolumes()
      return (vols.Volumes ?? []).filter((v) => v.Name.startsWith('berth-snap-')).length <= 3
    }, 'dropped seals to leave the engine', 30_000)
  })

  it('after kill -9 of the engine, the session is reported and comes back with no more lost than the last seal', async () => {
    // stop sealing, so what is written next is newer than the last seal
    await json(['settings', 'set', 'sealMinutes', '0'])
    // let a seal that was already under way finish
    let newest = ''
    await until(async () => {
      const top = (await json(['snapshot', 'ls', '--session', 'sealed', '--limit', '1'])).items[0]?.id as string
      const stable = top === newest
      newest = top
      if (!stable) await sleep(4000)
      return stable
    }, 'the last seal to settle', 60_000)
    const lastSeal = (await show('sealed')).savedAt as string
    await run(['exec', 'sealed', '--', 'sh', '-c', 'echo B > /workspace/b; echo B > /etc/b'])

    await engine.kill9()
    await engine.start()
    const failed = await until(async () => {
      const x = await show('sealed')
      return x.state === 'failed' ? x : null
    }, 'Berth to notice the stopped container', 60_000)
    expect(failed.failure).toContain('stopped this session')
    expect(failed.failure).toContain('berth restart sealed')

    const back = await json(['restart', 'sealed'])
    expect(back.state).toBe('running')
    const files = await run(['exec', 'sealed', '--', 'sh', '-c', 'cat /workspace/a /etc/a; cat /workspace/b /etc/b 2>/dev/null || true'])
    // everything up to the last seal for sure; here the container survived the crash, so even B
    expect(files.stdout).toBe('A\nA\nB\nB\n')

    // now the engine loses the container and its workspace volume altogether (a disk that died):
    // the session comes back from its last seal, and only what came after it is lost
    await engine.docker().getContainer(`berth-${back.id}`).remove({ force: true })
    await engine.docker().getVolume(`berth-${back.id}-ws`).remove()
    await until(async () => (await show('sealed')).state === 'failed', 'Berth to notice the lost container', 60_000)
    const restored = await json(['restart', 'sealed'])
    expect(restored.state).toBe('running')
    // /workspace is the last seal's copy (B, written after it, is lost); the rest of the disk is
    // the newest Berth kept: the commit the first restart made (it has /etc/b)
    const after = await run(['exec', 'sealed', '--', 'sh', '-c', 'cat /workspace/a /etc/a /etc/b; ls /workspace'])
    expect(after.stdout).toBe('A\nA\nB\na\n')
    const latestSeal = (await json(['snapshot', 'ls', '--session', 'sealed', '--limit', '1'])).items[0]
    expect(Date.parse(latestSeal.createdAt)).toBeLessThanOrEqual(Date.parse(lastSeal))
  })
})
