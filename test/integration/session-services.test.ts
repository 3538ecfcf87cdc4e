// A session whose image has its own service (a small web server in its CMD) is that service: it
// serves after create, across a memory pause and resume and a move. A main process that stops by
// itself is reported and restarted by the session's policy; limits reach the engine, the meter and
// the kernel, which kills a session that goes over its memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, until } from '../support/berth'
import { buildImage, removeImage } from '../support/images'
import { testHost } from '../support/testhost'

const h = testHost()
const tag = `${process.pid}-${Date.now().toString(36)}`
const SERVER = `berth-test-web:${tag}`
const FAILING = `berth-test-fails:${tag}`
const HOG = `berth-test-hog:${tag}`

describe("a session's own services and limits", () => {
  const berth = new BerthHome('services')
  beforeAll(async () => {
    const docker = localDocker()
    await buildImage(docker, SERVER, {
      Dockerfile: `FROM ${h.tinyImage}\nCOPY index.html /www/index.html\nWORKDIR /www\nCMD ["sh", "-c", "echo serving on 8080; exec busybox httpd -f -p 8080 -h /www"]\n`,
      'index.html': 'hello from the image\n',
    })
    await buildImage(docker, FAILING, { Dockerfile: `FROM ${h.tinyImage}\nCMD ["sh", "-c", "echo about to fail; exit 3"]\n` })
    // dd's 200 MiB buffer: more than a 64 MiB session may hold
    await buildImage(docker, HOG, { Dockerfile: `FROM ${h.tinyImage}\nCMD ["sh", "-c", "echo filling memory; exec dd if=/dev/zero of=/dev/null bs=200M count=1"]\n` })
    await berth.addOffice()
  }, 300_000)
  afterAll(async () => {
    await berth.cleanup()
    for (const image of [SERVER, FAILING, HOG]) await removeImage(localDocker(), image)
  })

  const page = (id: string) => berth.run(['exec', id, '--', 'busybox', 'wget', '-q', '-O', '-', 'http://127.0.0.1:8080/'])
  const serves = (id: string, what: string) => until(async () => ((await page(id)).stdout === 'hello from the image\n' ? true : undefined), what, 60_000)

  it('keeps serving after create, a memory pause and resume, and a move to another server', async () => {
    const s = await berth.json(['session', 'create', '--image', SERVER, '--name', 'web'])
    await serves(s.id, 'the image\'s server to answer after create')
    const shown = await berth.json(['session', 'show', s.id])
    expect(shown.main).toMatchObject({ command: ['sh', '-c', 'echo serving on 8080; exec busybox httpd -f -p 8080 -h /www'], restart: 'on-failure', state: 'running', exits: 0 })
    // it runs as the image said, in its folder; terminals and commands still start in /workspace
    expect((await berth.run(['exec', s.id, '--', 'sh', '-c', 'pwd'])).stdout).toBe('/workspace\n')

    const paused = await berth.json(['pause', s.id, '--wait'])
    // memory, or (a loaded machine's memory-pause test running late) another mode that says why
    if (paused.mode !== 'memory') expect(paused.fallback).toEqual(expect.any(String))
    console.log(`pause of the web session: ${paused.mode}${paused.fallback ? ` (${paused.fallback})` : ''}`)
    await berth.json(['resume', s.id])
    await serves(s.id, 'the server to answer after pause and resume')

    await berth.json(['pause', s.id, '--wait'])
    const moved = await berth.json(['resume', s.id, '--on', 'office'], { timeoutMs: 300_000 })
    expect(moved.session).toMatchObject({ server: 'office', state: 'running' })
    await serves(s.id, 'the server to answer on the office server')
    expect((await berth.json(['session', 'show', s.id])).main).toMatchObject({ state: 'running', exits: 0 })
    await berth.json(['finish', s.id])
  }, 600_000)

  it('reports a main process that stops by itself, and restarts it by the policy', async () => {
    const once = await berth.json(['session', 'create', '--image', FAILING, '--restart', 'no'])
    const stopped = await until(async () => {
      const s = await berth.json(['session', 'show', once.id])
      return s.main?.state === 'stopped' ? s : undefined
    }, 'the stop to be reported', 60_000)
    expect(stopped.state).toBe('running') // the session stays up for terminals and commands
    expect(stopped.main.lastExit).toMatchObject({ code: 3, sentence: 'the main process (sh -c echo about to fail; exit 3) stopped by itself with exit code 3; not restarted (--restart no).' })
    expect(stopped.main.lastExit.lines).toContain('about to fail')
    expect((await berth.run(['exec', once.id, '--', 'true'])).code).toBe(0)
    const events = await berth.json(['session', 'events', once.id])
    expect(events.filter((e: { kind: string }) => e.kind === 'main-exited')).toHaveLength(1)
    const text = await berth.run(['session', 'show', once.id])
    expect(text.stdout).toContain('stopped by itself with exit code 3; not restarted')

    const again = await berth.json(['session', 'create', '--image', FAILING])
    const restarted = await until(async () => {
      const s = await berth.json(['session', 'show', again.id])
      return s.main?.exits >= 2 ? s : undefined
    }, 'the policy to restart it', 90_000)
    expect(restarted.main).toMatchObject({ restart: 'on-failure', state: 'running' })
    expect(restarted.main.lastExit.sentence).toContain('restarted by the on-failure policy')
    await berth.json(['finish', once.id])
    await berth.json(['finish', again.id])
  }, 300_000)

  it('has the kernel kill a session that goes over --memory 64m, and says so in one sentence', async () => {
    const s = await berth.json(['session', 'create', '--image', HOG, '--memory', '64m', '--restart', 'no'])
    expect(s.limits).toEqual({ memoryBytes: 64 * 2 ** 20 })
    const killed = await until(async () => {
      const x = await berth.json(['session', 'show', s.id])
      return x.main?.lastExit ? x : undefined
    }, 'the kill to be reported', 90_000)
    expect(killed.main.lastExit.code).toBe(137)
    // one sentence: what, why (the kernel, the limit, the code), and what Berth did
    expect(killed.main.lastExit.sentence).toMatch(
      /^the main process \(sh -c echo filling memory; exec dd [^)]*\) was killed by the kernel for using more than the session's memory limit of 64 MiB \(exit code 137\); not restarted \(--restart no\)\.$/,
    )
    const inspect = await localDocker().getContainer(killed.containerId).inspect()
    expect(inspect.HostConfig.Memory).toBe(64 * 2 ** 20)
    await berth.json(['finish', s.id])
  }, 300_000)

  it('shows --cpus 0.5 in the meter, and changes limits of a running session', async () => {
    const s = await berth.json(['session', 'create', '--image', h.tinyImage, '--cpus', '0.5', '--pids', '200'])
    expect(s.limits).toEqual({ cpus: 0.5, pids: 200 })
    expect(s.main).toBeNull() // a bare shell is no service: Berth's keep-alive holds the session
    const c = localDocker().getContainer(s.containerId)
    expect((await c.inspect()).HostConfig).toMatchObject({ NanoCpus: 5e8, PidsLimit: 200 })
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'timeout 30 sh -c "while :; do :; done" >/dev/null 2>&1 &'])
    const metered = await until(async () => {
      const x = await berth.json(['session', 'show', s.id])
      return x.meter?.sampledAt && x.meter.cpuPercent > 0 ? x : undefined
    }, 'the meter to sample the busy session', 60_000)
    expect(metered.meter.cpuLimit).toBe(0.5)
    // the cgroup holds it near half a cpu (generous: the machine is shared and samples are noisy)
    expect(metered.meter.cpuPercent).toBeLessThan(80)
    const text = await berth.run(['session', 'show', s.id])
    expect(text.stdout).toMatch(/limits: +0\.5 cpus, 200 processes/)
    expect(text.stdout).toMatch(/% now of 0\.5 cpus\)/)

    const set = await berth.run(['session', 'set', s.id, '--cpus', '1', '--memory', '128m'])
    expect(set.code).toBe(0)
    expect(set.stdout).toBe(`limits of ${s.name}: 1 cpus, memory 128 MiB, 200 processes\n`)
    expect((await c.inspect()).HostConfig).toMatchObject({ NanoCpus: 1e9, Memory: 128 * 2 ** 20, PidsLimit: 200 })
    const bad = await berth.run(['session', 'set', s.id, '--memory', 'lots'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('not a size: lots')
    await berth.json(['finish', s.id])
  }, 300_000)
})
