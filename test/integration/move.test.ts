// Resume elsewhere: a paused session moves to another server with its files, its route and its
// memory (a shell variable inside tmux), and back; a transfer cut half way leaves the source intact
// and the next try completes it.
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker, officeDocker, sleep, until } from '../support/berth'
import { killAll, PrivateSshd, sshdChildrenServing } from '../support/sshd'
import { testHost } from '../support/testhost'
import { readTmuxVariable, setTmuxVariable } from '../support/views'

const h = testHost()

describe('moving a paused session to another server and back', () => {
  const berth = new BerthHome('move')
  beforeAll(async () => {
    await berth.addOffice()
  })
  afterAll(() => berth.cleanup())

  it('keeps its files, its route and its memory, local -> office -> local', async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'traveller'])
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo ws > /workspace/w; mkdir -p /opt/app && echo layer > /opt/app/l; rm /etc/issue'])
    await setTmuxVariable(berth, s.id, 'from-the-laptop')
    expect((await berth.json(['pause', s.id, '--wait'])).mode).toBe('memory')

    const out = await berth.json(['resume', s.id, '--on', 'office'])
    expect(out).toMatchObject({ from: 'local', to: 'office', memory: true, note: null, resumed: true })
    expect(out.session).toMatchObject({ id: s.id, route: s.route, server: 'office', state: 'running' })
    expect(out.layersSkipped).toBeGreaterThan(0)
    const there = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat /workspace/w /opt/app/l; ls /etc/issue 2>/dev/null || echo deleted-stays-deleted; hostname'])
    expect(there.stdout).toBe(`ws\nlayer\ndeleted-stays-deleted\n${s.route}\n`)
    expect(await readTmuxVariable(berth, s.id)).toBe('v=from-the-laptop')
    // the session lives in one place: nothing of it is left on the laptop
    const homeId = await berth.homeId()
    await until(async () => (await localDocker().listContainers({ all: true, filters: { label: [`berth.session=${s.id}`, `berth.home=${homeId}`] } })).length === 0, 'the laptop copy to go')
    expect((await localDocker().listVolumes({ filters: { label: [`berth.session=${s.id}`] } })).Volumes ?? []).toEqual([])
    expect((await officeDocker().listContainers({ filters: { label: [`berth.session=${s.id}`] } })).length).toBe(1)

    // and back, with a change made on the office server
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'echo office >> /workspace/w'])
    await berth.json(['pause', s.id, '--wait'])
    const back = await berth.json(['resume', s.id, '--on', 'local'])
    expect(back).toMatchObject({ from: 'office', to: 'local', memory: true, resumed: true })
    expect(back.session).toMatchObject({ id: s.id, route: s.route, server: 'local' })
    const home = await berth.run(['exec', s.id, '--', 'sh', '-c', 'cat /workspace/w /opt/app/l'])
    expect(home.stdout).toBe('ws\noffice\nlayer\n')
    expect(await readTmuxVariable(berth, s.id)).toBe('v=from-the-laptop')
    const show = await berth.json(['session', 'show', s.id])
    expect(show.origin).toMatchObject({ verb: 'move', memory: true })
  })

  it('answers clearly when a move cannot start', async () => {
    const running = await berth.json(['session', 'create', '--image', h.tinyImage])
    const r = await berth.run(['resume', running.id, '--on', 'office'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('is running: pause it first')
    const unknown = await berth.run(['resume', running.id, '--on', 'nowhere'])
    expect(unknown.code).toBe(3)
    await berth.json(['pause', running.id, '--wait'])
    const same = await berth.run(['resume', running.id, '--on', 'local'])
    expect(same.stderr).toContain('already on local')
    await berth.json(['finish', running.id])
  })
})

describe('a move whose connection is cut half way', () => {
  const berth = new BerthHome('movecut')
  const sshd = new PrivateSshd(23000 + Math.floor(Math.random() * 900))
  beforeAll(async () => {
    await sshd.start()
    await berth.addOffice('far', sshd)
  })
  afterAll(async () => {
    await berth.cleanup()
    sshd.cleanup()
  })

  it('leaves the source intact, and the next try continues from what arrived', async () => {
    const s = await berth.json(['session', 'create', '--image', h.baseImage, '--name', 'heavy'])
    // enough bytes that the transfer takes a while: 160 MiB of random data in the writable layer
    await berth.run(['exec', s.id, '--', 'sh', '-c', 'head -c 167772160 /dev/urandom > /opt/blob; sha256sum /opt/blob > /opt/blob.sum'])
    await setTmuxVariable(berth, s.id, 'survives-the-cut')
    await berth.json(['pause', s.id, '--wait'])

    const homeId = await berth.homeId()
    const stage = `/home/office/.local/state/berth/${homeId}/xfer`
    const received = () => {
      try {
        return Number(execFileSync('sh', ['-c', `cat ${stage}/*/bundle.tar 2>/dev/null | wc -c`]).toString().trim())
      } catch {
        return 0
      }
    }
    const moving = berth.run(['resume', s.id, '--on', 'far'], { timeoutMs: 300_000 })
    await until(() => received() > 40 * 1024 * 1024, 'a good part of the writable layer to arrive', 240_000)
    const pid = berth.daemonPid()!
    const children = sshdChildrenServing(pid, sshd.port)
    expect(children.length).toBeGreaterThan(0)
    killAll(children)
    const cut = await moving
    expect(cut.code).toBe(4)
    expect(cut.stderr).toContain('was cut')
    expect(cut.stderr).toContain('the next try continues where this one stopped')
    const partial = received()
    expect(partial).toBeGreaterThan(0)

    // the source is intact: still paused on the laptop with its container, nothing running on far
    const after = await berth.json(['session', 'show', s.id])
    expect(after).toMatchObject({ server: 'local', state: 'paused', mode: 'memory' })
    const src = await localDocker().getContainer(`berth-${s.id}`).inspect()
    expect(src.State.Running).toBe(false)
    expect(await officeDocker().listContainers({ all: true, filters: { label: [`berth.session=${s.id}`] } })).toEqual([])

    // the retry sends only what is missing, and the session continues there with its memory
    await sleep(500)
    const retry = await berth.json(['resume', s.id, '--on', 'far'], { timeoutMs: 300_000 })
    expect(retry).toMatchObject({ to: 'far', memory: true, resumed: true })
    expect(retry.bytes).toBeLessThan(167772160 - partial + 16 * 1024 * 1024)
    expect(await readTmuxVariable(berth, s.id)).toBe('v=survives-the-cut')
    const check = await berth.run(['exec', s.id, '--', 'sha256sum', '-c', '/opt/blob.sum'])
    expect(check.stdout).toContain('/opt/blob: OK')
    // nothing staged is left behind once the move completed
    await until(() => received() === 0, 'the staged copies to go')
  })
})
