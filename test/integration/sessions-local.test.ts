// A developer's first minutes with Berth on the laptop's own engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, containersOf, localDocker, until } from '../support/berth'
import { testHost } from '../support/testhost'

describe('sessions on the local engine', () => {
  const berth = new BerthHome('local')
  const image = testHost().tinyImage

  afterAll(() => berth.cleanup())

  it('creates a session, runs commands in it with their exit codes, and finishes it without leaving a container', async () => {
    const s = await berth.json(['session', 'create', '--image', image, '--name', 'first', '--env', 'GREETING=hello there'])
    expect(s).toMatchObject({ name: 'first', server: 'local', state: 'running', image })
    expect(s.id).toMatch(/^[a-z0-9]{10}$/)
    expect(s.route).toMatch(/^[a-z]+-[a-z]+-\d{2}$/)
    expect(Date.parse(s.createdAt)).toBeGreaterThan(Date.now() - 120_000)

    const echo = await berth.run(['exec', 'first', '--', 'sh', '-c', 'echo "$GREETING from $(cat /etc/hostname)"; echo oops >&2; exit 7'])
    expect(echo.code).toBe(7)
    expect(echo.stdout).toBe(`hello there from ${s.route}\n`)
    expect(echo.stderr).toContain('oops')

    const piped = await berth.run(['exec', '-i', s.id, '--', 'sh', '-c', 'wc -c'], { input: 'x'.repeat(100_000) })
    expect(piped.code).toBe(0)
    expect(piped.stdout.trim()).toBe('100000')

    const ws = await berth.run(['exec', s.id, '--', 'sh', '-c', 'pwd; echo kept > /workspace/f; cat /workspace/f'])
    expect(ws.stdout).toBe('/workspace\nkept\n')

    const list = await berth.json(['session', 'ls'])
    expect(list.map((x: { id: string }) => x.id)).toContain(s.id)
    const homeId = await berth.homeId()
    // its container (beside the engine's memory-pause test, which may still be running)
    expect((await containersOf(localDocker(), homeId)).filter((c) => c.Labels['berth.session'])).toHaveLength(1)

    const done = await berth.json(['finish', s.id])
    expect(done).toMatchObject({ id: s.id, state: 'finished' })
    expect(done.finishedAt).toBeTruthy()
    expect((await containersOf(localDocker(), homeId)).filter((c) => c.Labels['berth.session'])).toEqual([])
    // and nothing of Berth's is left on the engine once its memory-pause test is done
    await until(async () => ((await containersOf(localDocker(), homeId)).length === 0 ? true : undefined), 'the engine to hold nothing of this home', 30_000)
    const volumes = await localDocker().listVolumes({ filters: { label: [`berth.home=${homeId}`] } })
    expect(volumes.Volumes ?? []).toEqual([])

    const history = await berth.json(['session', 'show', s.id])
    expect(history).toMatchObject({ state: 'finished', createdAt: s.createdAt })
    const again = await berth.run(['exec', s.id, '--', 'true'])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('finished')
  })

  it('streams a large output completely and in order', async () => {
    const s = await berth.json(['session', 'create', '--image', image])
    const r = await berth.run(['exec', s.id, '--', 'sh', '-c', 'i=0; while [ $i -lt 20000 ]; do echo "line $i"; i=$((i+1)); done'])
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split('\n')
    expect(lines.length).toBe(20000)
    expect(lines[19999]).toBe('line 19999')
    await berth.json(['finish', s.id])
  })

  it('answers unknown ids with exit 3 and bad flags with exit 2 and the usage line', async () => {
    const unknown = await berth.run(['session', 'show', 'no-such-session'])
    expect(unknown.code).toBe(3)
    expect(unknown.stderr).toBe('berth: session not found: no-such-session\n')

    const unknownJson = await berth.run(['finish', 'nope', '--json'])
    expect(unknownJson.code).toBe(3)
    expect(JSON.parse(unknownJson.stdout)).toEqual({ error: { code: 'not_found', message: 'session not found: nope' } })

    const execUnknown = await berth.run(['exec', 'nope', '--', 'true'])
    expect(execUnknown.code).toBe(3)

    const badFlag = await berth.run(['session', 'create', '--image', image, '--colour', 'red'])
    expect(badFlag.code).toBe(2)
    expect(badFlag.stderr).toContain('unknown flag: --colour')
    expect(badFlag.stderr).toContain('usage: berth session create')

    const noImage = await berth.run(['session', 'create'])
    expect(noImage.code).toBe(2)
    expect(noImage.stderr).toContain('missing --image')

    const badEnv = await berth.run(['session', 'create', '--image', image, '--env', 'no-equals'])
    expect(badEnv.code).toBe(2)

    const noCmd = await berth.run(['exec', 'x'])
    expect(noCmd.code).toBe(2)

    const unknownVerb = await berth.run(['frobnicate'])
    expect(unknownVerb.code).toBe(2)

    const unknownServer = await berth.run(['session', 'create', '--server', 'nowhere', '--image', image])
    expect(unknownServer.code).toBe(3)
    expect(unknownServer.stderr).toContain('server not found: nowhere')

    const missingImage = await berth.run(['session', 'create', '--image', 'berth-no-such-image:1'])
    expect(missingImage.code).toBe(3)
    expect(missingImage.stderr).toContain('image not found')
    const failed = (await berth.json(['session', 'ls', '--state', 'failed'])) as Array<{ failure: string }>
    expect(failed.at(0)?.failure).toContain('image not found')
  })

  it('keeps one daemon per home, records it in daemon.pid, and stops it with shutdown', async () => {
    const pid = berth.daemonPid()
    expect(pid).toBeGreaterThan(0)
    const second = await berth.run(['daemon'])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain('already drives the engines')
    const stop = await berth.run(['shutdown'])
    expect(stop.code).toBe(0)
    expect(berth.daemonPid()).toBeUndefined()
    // the next verb starts a new one
    const list = await berth.json(['session', 'ls'])
    expect(Array.isArray(list)).toBe(true)
    expect(berth.daemonPid()).not.toBe(pid)
  })
})
