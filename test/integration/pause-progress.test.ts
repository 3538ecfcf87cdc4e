// A user watching a pause sees its stage and the memory written against what was expected, for every
// kind of memory dump: Docker's own checkpoint (where Berth's fast path is not available), and the
// memory of a session a lid-close pause left frozen, written later. (The fast path's own figures are
// pause-local's story.)
import { afterAll, describe, expect, it } from 'vitest'
import { connectOrStart, type ControlClient } from '../../src/main/doors/control-client'
import { BerthHome, ROOT, until } from '../support/berth'
import { jobProcesses, untilFrozenMemoryWritten } from '../support/pauses'
import { testHost } from '../support/testhost'
import { join } from 'node:path'

const MiB = 1048576
const base = testHost().baseImage

interface Seen {
  stage: string
  bytes: number
  total: number | null
  message: string
  done: boolean
}

describe('the memory written, shown while a dump runs', () => {
  const berth = new BerthHome('pause-progress')
  afterAll(() => berth.cleanup())

  /** A session whose process holds MIB of memory (a detached job: in its own process tree, so the dump keeps it). */
  async function holding(name: string, mib: number): Promise<string> {
    const s = await berth.json(['session', 'create', '--image', base, '--name', name])
    await berth.run(['exec', '--detach', s.id, '--', 'perl', '-e', `my $x = "m"; $x x= (${mib} * ${MiB}); open(my $f, ">", "/tmp/held"); close($f); sleep 3600`])
    await until(async () => (await berth.run(['exec', s.id, '--', 'test', '-e', '/tmp/held'])).code === 0, `the session to hold ${mib} MiB`, 60_000)
    return s.id
  }

  /** The progress events of session ID, as a user's UI receives them. */
  async function watching(id: string): Promise<{ client: ControlClient; seen: Seen[] }> {
    const client = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    const seen: Seen[] = []
    client.on('progress', (p) => p.sessionId === id && seen.push({ stage: p.stage, bytes: p.bytes, total: p.total, message: p.message, done: p.done }))
    await client.call('events.subscribe', { names: ['progress'] })
    return { client, seen }
  }

  /** What the bar showed of the dump: from 0 of what was expected, forward while it wrote, to what it wrote. */
  function expectDumpShown(seen: Seen[], name: string, atLeastMiB: number): void {
    const dump = seen.filter((p) => p.stage === 'memory')
    const detail = JSON.stringify(dump.map((p) => `${p.message}: ${p.bytes}/${p.total}`))
    expect(dump[0], detail).toMatchObject({ bytes: 0, message: `writing the memory of ${name}` })
    expect(dump[0]!.total, detail).toBeGreaterThan(atLeastMiB * MiB)
    const figures = dump.map((p) => p.bytes)
    const written = dump.filter((p) => p.message === `writing the memory of ${name}` && p.bytes > 0).map((p) => p.bytes)
    expect(written.length, detail).toBeGreaterThanOrEqual(1)
    expect(new Set(figures.filter((b) => b > 0)).size, detail).toBeGreaterThanOrEqual(2)
    expect(figures, detail).toEqual([...figures].sort((a, b) => a - b))
    const last = dump.at(-1)!
    expect(last.message, detail).toBe(`memory of ${name} written; making it durable`)
    expect(last.bytes, detail).toBeGreaterThan(atLeastMiB * MiB)
    expect(Math.max(...written), detail).toBeLessThanOrEqual(last.bytes)
    console.log(`${name}: ${detail}`)
  }

  it('shows the memory of a session left frozen being written, once there is time', async () => {
    // what the server can do is known before the lid closes (as the app's start makes sure)
    expect((await berth.json(['server', 'test', 'local'])).memoryPause.available).toBe(true)
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage, '--name', 'frozen-first'])
    const id: string = s.id
    await berth.run(['exec', id, '--', 'sh', '-c', '(dd if=/dev/urandom bs=384M count=1 | sleep 3600) </dev/null >/dev/null 2>&1 &'])
    const used = async () => Number((await berth.run(['exec', id, '--', 'sh', '-c', 'cat /sys/fs/cgroup/memory/memory.usage_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.current'])).stdout.trim())
    await until(async () => (await used()) > 380 * MiB, 'the session to hold 384 MiB', 60_000)
    // the window closes before its dump could start: frozen, memory kept, not durable yet
    const r = await berth.run(['pause', '--all', '--wait', '--deadline', '1', '--json'])
    const [entry] = JSON.parse(r.stdout).results
    expect(entry.result, r.stdout + r.stderr).toMatchObject({ paused: true, mode: 'frozen', durable: false, pending: 'memory' })
    const { client, seen } = await watching(id)
    try {
      // once the lid-close window is long past, the next contact writes its memory
      await untilFrozenMemoryWritten(berth, id).catch(async (e: unknown) => {
        console.log(`the session's events: ${JSON.stringify(await berth.json(['session', 'events', id]))}`)
        throw e
      })
      await until(() => seen.some((p) => p.done), 'the completion to say it is done')
      expect(seen[0], JSON.stringify(seen)).toMatchObject({ stage: 'pause', message: 'writing the memory of frozen-first, frozen on local' })
      expectDumpShown(seen, 'frozen-first', 370)
      expect(seen.at(-1)).toMatchObject({ done: true, message: 'frozen-first is paused (memory, durable)' })
    } finally {
      client.close()
    }
    expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory' })
    await berth.json(['finish', id])
  })

  it("shows the bytes Docker's own checkpoint has written, against the memory expected", async () => {
    await berth.json(['server', 'checkpoint', 'local', 'docker'])
    try {
      const id = await holding('dockered', 512)
      const { client, seen } = await watching(id)
      try {
        const r = await client.call('session.pause', { id, wait: true, op: 'dockered-pause' })
        expect(r).toMatchObject({ paused: true, mode: 'memory', durable: true })
        expectDumpShown(seen, 'dockered', 500)
      } finally {
        client.close()
      }
      // the sampler ended with the dump: nothing of the pause's job is left running on the server
      const homeId = await berth.homeId()
      await until(() => jobProcesses(homeId).length === 0, 'the pause job and its sampler to be gone', 5000)
      expect(await berth.json(['resume', id])).toMatchObject({ resumed: true, mode: 'memory' })
      await berth.json(['finish', id])
    } finally {
      await berth.json(['server', 'checkpoint', 'local', 'auto'])
    }
  })
})

