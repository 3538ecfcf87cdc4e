// A snapshot of a running session with its memory, when CRIU fails during the leave-running dump:
// it hangs (the dump's budget ends it), or it is killed half way. Either way the session keeps
// running, never left frozen, the snapshot holds its disk and says plainly why its memory was not
// kept, and no checkpoint, whole or half written, is left behind. The private engine's CRIU is
// broken the way the lid-close tests break it (test/support/criu.ts).
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { checkpointers, CriuSwitch } from '../support/criu'
import { PrivateDockerd } from '../support/dockerd'
import { testHost } from '../support/testhost'
import { counter, counterAtLeast } from '../support/views'

const h = testHost()

describe('snapshots of a running session when CRIU fails', () => {
  const fakeCriu = new CriuSwitch()
  const engine = new PrivateDockerd('172.31.222.1/24', { PATH: fakeCriu.path })
  const berth = new BerthHome('live-faults')
  const env = { DOCKER_HOST: engine.dockerHost }
  const run = (args: string[], timeoutMs = 120_000) => berth.run(args, { env, timeoutMs })
  const json = <T = any>(args: string[], timeoutMs = 120_000) => berth.json<T>(args, { env, timeoutMs })

  /** A tiny running session counting in its own process tree, holding MIB of memory. */
  async function counting(name: string, mib: number): Promise<{ id: string; containerId: string }> {
    const s = await json(['session', 'create', '--image', h.tinyImage, '--name', name])
    const loop = `(dd if=/dev/zero bs=${mib}M count=1 | sleep 3600) </dev/null >/dev/null 2>&1 & (i=0; while :; do echo $i > /tmp/counter; i=$((i+1)); sleep 0.2; done) </dev/null >/dev/null 2>&1 &`
    expect((await run(['exec', name, '--', 'sh', '-c', loop])).code).toBe(0)
    await counterAtLeast(berth, s.id, 3)
    return { id: s.id, containerId: s.containerId }
  }

  /** What the live dump leaves in Docker's folders for the container: published or half written. */
  function checkpointFiles(containerId: string): { published: string[]; staged: string[] } {
    const c = join(engine.dataRoot, 'containers', containerId)
    const list = (d: string) => (existsSync(d) ? readdirSync(d) : [])
    return { published: list(join(c, 'checkpoints')), staged: list(join(c, 'berth')).filter((f) => /^(live|livework)-/.test(f)) }
  }

  /** The session runs on, not frozen: Docker says so at once, and its counter goes on. */
  async function keepsRunning(s: { id: string; containerId: string }): Promise<void> {
    const info = await engine.docker().getContainer(s.containerId).inspect()
    expect(info.State).toMatchObject({ Running: true, Paused: false })
    expect(await json(['session', 'show', s.id])).toMatchObject({ state: 'running', containerId: s.containerId })
    const now = await counter(berth, s.id)
    await counterAtLeast(berth, s.id, now + 3)
  }

  beforeAll(async () => {
    fakeCriu.works()
    await engine.start()
    engine.loadFrom(h.localSocket, h.tinyImage)
  }, 180_000)

  // each story starts from a CRIU that works and a Berth that knows it (a live dump needs the fast
  // method); the probe's test dump is bounded (9 s), which a loaded machine can overrun once
  beforeEach(async () => {
    fakeCriu.works()
    let found: { available: boolean; how: string; note: string | null } | undefined
    await until(async () => {
      found = (await json(['server', 'test', 'local'])).memoryPause
      return found?.available ? found : undefined
    }, 'the probe to find a working CRIU', 90_000).catch(() => undefined)
    expect(found, found?.note ?? '').toMatchObject({ available: true, how: 'fast' })
  }, 120_000)

  afterAll(async () => {
    await berth.cleanup()
    await engine.stop()
    fakeCriu.remove()
  })

  it('CRIU hangs in the dump: the dump is ended within its budget, the snapshot keeps the disk and says why, the session counts on', async () => {
    const s = await counting('hung', 16)
    await run(['exec', 'hung', '--', 'sh', '-c', 'echo on-disk > /workspace/kept'])
    fakeCriu.hangs()
    const t0 = Date.now()
    const snap = await json(['snapshot', 'create', 'hung', '--name', 'hung-snap'])
    expect(Date.now() - t0).toBeLessThan(60_000)
    expect(snap).toMatchObject({ id: 'hung-snap:v1', kind: 'disk', sessionId: s.id })
    expect(snap.memoryNote).toMatch(/^memory not kept: the memory dump did not finish within 30 s; Berth ended it/)
    fakeCriu.works()

    expect(checkpointers(s.containerId)).toEqual([])
    expect(checkpointFiles(s.containerId)).toEqual({ published: [], staged: [] })
    await keepsRunning(s)

    // the snapshot is whole on disk: a session started from it has the files, and no memory
    const made = await json(['session', 'create', '--from', 'hung-snap', '--name', 'from-hung'])
    expect(made.origin).toMatchObject({ snapshot: 'hung-snap:v1', memory: false })
    expect((await run(['exec', 'from-hung', '--', 'cat', '/workspace/kept'])).stdout).toBe('on-disk\n')
    await json(['finish', 'from-hung'])
  })

  it('CRIU killed half way through the dump: the snapshot keeps the disk, nothing half written stays, the session counts on; with CRIU back it keeps memory again', async () => {
    const s = await counting('killed', 256)
    fakeCriu.diesAfter(250)
    const snap = await json(['snapshot', 'create', 'killed', '--name', 'killed-snap'])
    fakeCriu.works()
    expect(snap).toMatchObject({ id: 'killed-snap:v1', kind: 'disk', sessionId: s.id })
    expect(snap.memoryNote).toMatch(/^memory not kept: the memory dump failed/)

    expect(checkpointers(s.containerId)).toEqual([])
    expect(checkpointFiles(s.containerId)).toEqual({ published: [], staged: [] })
    await keepsRunning(s)

    const again = await json(['snapshot', 'create', 'killed', '--name', 'killed-again'])
    expect(again).toMatchObject({ kind: 'memory+disk' })
    expect(again.freezeMs).toBeGreaterThan(0)
    await keepsRunning(s)
  })
})
