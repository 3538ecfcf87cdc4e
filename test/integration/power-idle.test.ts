// The lid-close path and idle auto-pause: sleep pauses what the policy covers and wake resumes
// only what the policy paused; idle sessions pause themselves unless someone is using them.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { connectOrStart } from '../../src/main/doors/control-client'
import { BerthHome, BIN, ROOT, sleep, until } from '../support/berth'
import { testHost } from '../support/testhost'

interface S {
  id: string
  name: string
  state: string
  pausedBy: string | null
  mode: string | null
  durable: boolean
  activity?: { status: string; lastSignal: string | null; idleAfterSeconds: number | null }
}

describe('sleep and idleness', () => {
  const berth = new BerthHome('power-idle')
  const tiny = testHost().tinyImage
  const tmp = mkdtempSync(join(tmpdir(), 'berth-hooks-'))

  afterAll(async () => {
    await berth.cleanup()
    rmSync(tmp, { recursive: true, force: true })
  })

  const show = (id: string) => berth.json<S>(['session', 'show', id])

  it('a simulated suspend pauses per the sleep policy; a simulated resume resumes only what the policy paused', async () => {
    const marked = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'marked'])
    const unmarked = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'unmarked'])
    const mine = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'mine'])
    await berth.json(['session', 'set', unmarked.id, '--auto-pause', 'off'])
    await berth.json(['pause', mine.id, '--wait'])
    // this test is about the policy: a window wide enough that every memory fits (lid-close.test and
    // bench/lid-close are about the window itself)
    await berth.json(['settings', 'set', 'pauseDeadlineSeconds', '120'])

    await berth.json(['settings', 'set', 'onSleep', 'marked'])
    const s1 = await berth.json(['power', 'simulate', 'suspend'])
    expect(s1).toMatchObject({ event: 'suspend', policy: 'marked' })
    expect(s1.inhibitor).toMatch(/^(held|none: .+)$/)
    expect(s1.paused.map((x: { name: string }) => x.name)).toEqual(['marked'])
    expect(s1.paused[0].result).toMatchObject({ paused: true, durable: true, mode: 'memory' })
    expect(await show(marked.id)).toMatchObject({ state: 'paused', pausedBy: 'policy', durable: true })
    expect((await show(unmarked.id)).state).toBe('running')

    const w1 = await berth.json(['power', 'simulate', 'resume'])
    expect(w1.resumed.map((x: { name: string }) => x.name)).toEqual(['marked'])
    expect(w1.resumed[0].result).toMatchObject({ resumed: true, mode: 'memory' })
    expect((await show(marked.id)).state).toBe('running')
    expect(await show(mine.id)).toMatchObject({ state: 'paused', pausedBy: 'user' })

    await berth.json(['settings', 'set', 'onSleep', 'all'])
    const s2 = await berth.json(['power', 'simulate', 'suspend'])
    expect(s2.paused.map((x: { name: string }) => x.name).sort()).toEqual(['marked', 'unmarked'])
    for (const id of [marked.id, unmarked.id]) expect(await show(id)).toMatchObject({ state: 'paused', pausedBy: 'policy', durable: true })

    // wake with resumeOnWake off: the policy's pauses stay too
    await berth.json(['settings', 'set', 'resumeOnWake', 'false'])
    const w2 = await berth.json(['power', 'simulate', 'resume'])
    expect(w2.resumed).toEqual([])
    expect((await show(marked.id)).state).toBe('paused')
    await berth.json(['settings', 'set', 'resumeOnWake', 'true'])
    const w3 = await berth.json(['power', 'simulate', 'resume'])
    expect(w3.resumed.map((x: { name: string }) => x.name).sort()).toEqual(['marked', 'unmarked'])
    expect(await show(mine.id)).toMatchObject({ state: 'paused', pausedBy: 'user' })

    await berth.json(['settings', 'set', 'onSleep', 'nothing'])
    const s3 = await berth.json(['power', 'simulate', 'suspend'])
    expect(s3.paused).toEqual([])
    expect((await show(marked.id)).state).toBe('running')
    await berth.json(['settings', 'set', 'onSleep', 'all'])

    const bad = await berth.run(['power', 'simulate', 'hibernate'])
    expect(bad.code).toBe(2)
    const events = (await berth.json(['session', 'events', marked.id])) as Array<{ kind: string; detail: Record<string, unknown> }>
    expect(events.some((e) => e.kind === 'transition' && e.detail.by === 'policy' && e.detail.reason === 'the machine is going to sleep')).toBe(true)
    expect(events.some((e) => e.kind === 'transition' && e.detail.cause === 'wake')).toBe(true)
    for (const s of [marked, unmarked, mine]) await berth.json(['finish', s.id])
  })

  it('installs the sleep hook for Linux and macOS, and the Linux hook drives the same path', async () => {
    const linuxDir = join(tmp, 'system-sleep')
    const r = await berth.json(['power', 'install-hook', '--platform', 'linux', '--dir', linuxDir])
    const hook = join(linuxDir, 'berth')
    expect(r).toMatchObject({ platform: 'linux', files: [{ path: hook }] })
    expect(statSync(hook).mode & 0o777).toBe(0o755)
    const text = readFileSync(hook, 'utf8')
    expect(text.startsWith('#!/bin/sh\n')).toBe(true)
    expect(text).toContain(`BERTH_HOME='${berth.home}'`)
    expect(text).toContain(`'${process.execPath}' '${join(ROOT, 'out', 'cli', 'berth.cjs')}' power "$verb"`)

    // systemd-sleep calls it with pre/post: the same path as the OS event
    const s = await berth.json<S>(['session', 'create', '--image', tiny])
    const run = (...args: string[]) =>
      new Promise<number | null>((res) => spawn('sh', [hook, ...args], { stdio: 'ignore', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }).on('close', res))
    expect(await run('pre', 'suspend')).toBe(0)
    expect(await show(s.id)).toMatchObject({ state: 'paused', pausedBy: 'policy', durable: true })
    expect(await run('post', 'suspend')).toBe(0)
    expect((await show(s.id)).state).toBe('running')
    expect(readFileSync(join(berth.home, 'sleep-hook.log'), 'utf8')).toContain('suspend:')

    // macOS: sleepwatcher's ~/.sleep and ~/.wakeup, keeping what the user has there
    const macHome = join(tmp, 'mac')
    mkdirSync(macHome, { recursive: true })
    writeFileSync(join(macHome, '.sleep'), '#!/bin/sh\nosascript -e "set volume output muted true"\n')
    for (let i = 0; i < 2; i++) await berth.json(['power', 'install-hook', '--platform', 'darwin', '--dir', macHome])
    const sleepFile = readFileSync(join(macHome, '.sleep'), 'utf8')
    expect(sleepFile).toContain('osascript -e "set volume output muted true"')
    expect(sleepFile.split('\n').filter((l) => l.includes('power suspend'))).toHaveLength(1)
    expect(readFileSync(join(macHome, '.wakeup'), 'utf8')).toContain('power resume')
    expect(statSync(join(macHome, '.wakeup')).mode & 0o777).toBe(0o755)
    await berth.json(['finish', s.id])
  })

  it('an idle session pauses itself, with the reason recorded; the next attach resumes it', async () => {
    const s = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'idler'])
    const set = await berth.json<S>(['session', 'set', s.id, '--idle', '3'])
    expect(set.activity?.idleAfterSeconds).toBe(3)
    // frozen with its files durable first, then its memory written
    const paused = await until(async () => {
      const x = await show(s.id)
      return x.state === 'paused' && x.durable ? x : undefined
    }, 'the idle session to pause itself', 60_000)
    expect(paused).toMatchObject({ pausedBy: 'idle', mode: 'memory' })
    expect(paused.activity?.status).toContain('paused by itself after its idle time')
    const events = (await berth.json(['session', 'events', s.id])) as Array<{ kind: string; to: string | null; detail: Record<string, unknown> }>
    const pause = events.find((e) => e.to === 'pausing')
    expect(pause?.detail).toMatchObject({ by: 'idle' })
    expect(String(pause?.detail.reason)).toMatch(/^no activity for 3 s/)

    // attaching (a command through Berth) resumes an auto-paused session
    const r = await berth.run(['exec', s.id, '--', 'echo', 'back'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('back\n')
    expect((await show(s.id)).state).toBe('running')
    await berth.json(['session', 'set', s.id, '--idle', 'off'])
    expect((await show(s.id)).activity?.status).toBe('active: idle auto-pause is off')

    // a session a person paused is not resumed by an attach
    await berth.json(['pause', s.id, '--wait'])
    const refused = await berth.run(['exec', s.id, '--', 'true'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('paused')
  })

  it('does not pause a session while a foreground command runs through Berth, nor while someone types in its terminal', async () => {
    const busy = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'busy'])
    const typing = await berth.json<S>(['session', 'create', '--image', tiny, '--name', 'typing'])
    const c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    let typist: NodeJS.Timeout | undefined
    try {
      const term = await c.call('exec.open', { id: typing.id, cmd: ['sh'], tty: true, stdin: true, cols: 80, rows: 24 })
      // someone types in the terminal, twice a second, from before the idle time is set until after
      let typed = 0
      typist = setInterval(() => {
        void c.call('stream.write', { streamId: term.streamId, data: Buffer.from(`echo typed ${typed++}\n`).toString('base64') }).catch(() => undefined)
      }, 500)
      const fg = spawn(process.execPath, [BIN, 'exec', busy.id, '--', 'sleep', '600'], { env: berth.env(), stdio: 'ignore' })
      const fgDone = new Promise((r) => fg.on('close', r))
      await until(async () => (await show(busy.id)).activity?.status.includes('foreground command'), 'the foreground command to count')
      await berth.json(['session', 'set', busy.id, '--idle', '3'])
      await berth.json(['session', 'set', typing.id, '--idle', '3'])
      await sleep(8000)
      expect(typed).toBeGreaterThan(10)
      const b = await show(busy.id)
      const t = await show(typing.id)
      expect(b.state).toBe('running')
      expect(b.activity?.status).toContain('1 foreground command running through Berth')
      expect(t.state).toBe('running')
      expect(t.activity?.lastSignal).toBe('terminal input')
      // once the command ends and the typing stops, both go idle and pause themselves
      clearInterval(typist)
      await c.call('stream.close', { streamId: term.streamId })
      fg.kill('SIGINT')
      await fgDone
      for (const id of [busy.id, typing.id]) {
        await until(async () => (await show(id)).state === 'paused', 'the session to pause itself once idle', 60_000)
        expect((await show(id)).pausedBy).toBe('idle')
      }
    } finally {
      clearInterval(typist)
      c.close()
    }
  })
})

describe('waking with several sessions paused', () => {
  const berth = new BerthHome('power-wake-order')
  const tiny = testHost().tinyImage
  type Ev = { seq: number; to: string | null }

  afterAll(async () => {
    await berth.cleanup()
  })

  it('the session the user used last comes back first, alone; the others once it runs', async () => {
    const names = ['north', 'seen', 'south']
    const ids: string[] = []
    for (const name of names) ids.push((await berth.json<S>(['session', 'create', '--image', tiny, '--name', name])).id)
    await berth.json(['settings', 'set', 'pauseDeadlineSeconds', '120'])
    await berth.json(['settings', 'set', 'onSleep', 'all'])
    // the user works in one of them last
    expect((await berth.run(['exec', 'seen', '--', 'true'])).code).toBe(0)
    const s = await berth.json(['power', 'simulate', 'suspend'])
    expect(s.paused.map((x: { name: string }) => x.name).sort()).toEqual([...names].sort())
    for (const id of ids) expect(await berth.json<S>(['session', 'show', id])).toMatchObject({ state: 'paused', pausedBy: 'policy' })

    const w = await berth.json(['power', 'simulate', 'resume'])
    expect(w.resumed.map((x: { name: string }) => x.name).sort()).toEqual([...names].sort())
    for (const x of w.resumed) expect(x.result).toMatchObject({ resumed: true })
    // the events log's order: the others began to resume only once the one in use ran again
    const last = async (id: string, to: string) => (await berth.json<Ev[]>(['session', 'events', id])).filter((e) => e.to === to).at(-1)!.seq
    const seenRunning = await last(ids[1]!, 'running')
    expect(seenRunning).toBeGreaterThan(await last(ids[1]!, 'resuming'))
    for (const id of [ids[0]!, ids[2]!]) expect(await last(id, 'resuming')).toBeGreaterThan(seenRunning)
  }, 240_000)
})
