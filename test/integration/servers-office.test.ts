// A team's office server, reached only over real OpenSSH: trusting it, using it, losing it.
import { readFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, containersOf, localDocker, officeDocker, until } from '../support/berth'
import { PrivateSshd, killSshdServing, sshdChildrenServing } from '../support/sshd'
import { testHost } from '../support/testhost'

const h = testHost()

describe('connected servers', () => {
  const berth = new BerthHome('office')
  afterAll(() => berth.cleanup())

  it('adds a server only after its host key fingerprint is confirmed, and stores nothing otherwise', async () => {
    const unconfirmed = await berth.run(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity])
    expect(unconfirmed.code).toBe(4)
    expect(unconfirmed.stderr).toContain(h.officeFingerprint)
    expect(unconfirmed.stderr).toContain('--accept-host-key')

    const wrong = 'SHA256:' + 'A'.repeat(43)
    const refused = await berth.run(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', wrong, '--json'])
    expect(refused.code).toBe(4)
    expect(JSON.parse(refused.stdout).error.code).toBe('host_key_mismatch')
    expect(refused.stderr).toContain(wrong)
    expect(refused.stderr).toContain(h.officeFingerprint)
    expect(refused.stderr).toContain('nothing was stored')

    const servers = await berth.json(['server', 'ls'])
    expect(servers.map((s: { name: string }) => s.name)).toEqual(['local'])

    const added = await berth.json(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])
    expect(added).toMatchObject({ name: 'office', kind: 'ssh', url: h.officeUrl, hostKeyFingerprint: h.officeFingerprint, state: 'connected' })
    // server add tested the server's memory pause for real, before any pause needs it (on a loaded
    // machine the test may finish after add answered: its finding is kept when it does)
    const shown = await until(async () => {
      const s = await berth.json(['server', 'show', 'office'])
      return s.memoryPause?.probedAt ? s : undefined
    }, 'the memory-pause test of server add', 90_000)
    expect(shown.memoryPause).toMatchObject({ available: true, how: expect.stringMatching(/^(fast|docker)$/) })
    expect(shown.memoryPause.note).toMatch(/^memory pauses work on office: .* dumped a \d+ MiB test in \d+ ms and Docker restored it/)
    // whether CRIU may save another user's processes is a fact of the machine (this kind: no). The
    // test dumps a process of nobody's directly, as root: the laptop's engine, where Berth is root,
    // knows (reached as a user, the office server's helper container lacks the rights to run CRIU
    // itself: its first such pause finds out, and says so, devcontainer.test.ts)
    const bounding = /^CapBnd:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]!
    const hasSysResource = (BigInt(`0x${bounding}`) >> 24n) & 1n
    const local = await until(async () => {
      const s = await berth.json(['server', 'show', 'local'])
      return s.memoryPause?.probedAt ? s : undefined
    }, 'the memory-pause test of the local engine', 90_000)
    if (hasSysResource) expect(local.memoryPause.rootOnly).toBeUndefined()
    else {
      expect(local.memoryPause.rootOnly).toBe(true)
      expect(local.memoryPause.note).toMatch(/but only for sessions whose processes all run as root: CRIU lacks the CAP_SYS_RESOURCE capability on local/)
    }
    expect(Date.parse(shown.memoryPause.probedAt)).toBeGreaterThan(Date.now() - 120_000)
    expect(shown.memoryPause.dumpMiBps).toBeGreaterThan(0)
    const listed = (await berth.json(['server', 'ls'])).find((x: { name: string }) => x.name === 'office')
    expect(listed.memoryPause).toEqual(shown.memoryPause)
    const knownHosts = readFileSync(join(berth.home, 'known_hosts'), 'utf8')
    expect(knownHosts).toMatch(/^\[127\.0\.0\.2\]:2222 ssh-ed25519 /m)

    const test = await berth.json(['server', 'test', 'office'])
    expect(test.version).toMatch(/^\d+\.\d+/)
    expect(test.rttMs).toBeGreaterThan(0)
    expect(test.rttMs).toBeLessThan(100)

    const dup = await berth.run(['server', 'add', 'office', h.officeUrl, '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])
    expect(dup.code).toBe(1)
    expect(dup.stderr).toContain('already exists')

    const bad = await berth.run(['server', 'add', 'x', 'http://nope'])
    expect(bad.code).toBe(2)
  })

  it('creates a session on the office server, carrying the image there by itself, and finishes it', async () => {
    // a tag the office engine has never seen, so the carry must happen now
    const tag = `berth-carry-${Date.now()}:t`
    const [repo, version] = tag.split(':') as [string, string]
    await localDocker().getImage(h.tinyImage).tag({ repo, tag: version })
    try {
      const r = await berth.run(['session', 'create', '--server', 'office', '--image', tag, '--name', 'remote', '--json'])
      expect(r.code).toBe(0)
      expect(r.stderr).toMatch(/carried .* to office/)
      const s = JSON.parse(r.stdout)
      expect(s).toMatchObject({ server: 'office', state: 'running', image: tag })
      await officeDocker().getImage(tag).inspect()

      const hostname = await berth.run(['exec', 'remote', '--', 'cat', '/etc/hostname'])
      expect(hostname).toMatchObject({ code: 0, stdout: `${s.route}\n` })
      const code = await berth.run(['exec', 'remote', '--', 'sh', '-c', 'exit 42'])
      expect(code.code).toBe(42)

      const homeId = await berth.homeId()
      // the session's container (beside the root helper the memory-pause test of `server add` started)
      const sessions = async () => (await containersOf(officeDocker(), homeId)).filter((c) => c.Labels['berth.session'])
      expect(await sessions()).toHaveLength(1)
      await berth.json(['finish', 'remote'])
      expect(await sessions()).toEqual([])
      const onlyOffice = await berth.json(['session', 'ls', '--server', 'office'])
      expect(onlyOffice.map((x: { state: string }) => x.state)).toEqual(['finished'])
    } finally {
      await localDocker().getImage(tag).remove().catch(() => undefined)
      await officeDocker().getImage(tag).remove().catch(() => undefined)
    }
  })

  it('removes a server only when no live session runs there, with the helper Berth started there, and forgets its host key once no server uses its address', async () => {
    const s = await berth.json(['session', 'create', '--server', 'office', '--image', h.tinyImage])
    const busy = await berth.run(['server', 'rm', 'office'])
    expect(busy.code).toBe(1)
    expect(busy.stderr).toContain('still has 1 live session')
    // a pause there runs through Berth's root helper, a container bound to the server's /
    await berth.json(['pause', s.id, '--wait'], { timeoutMs: 180_000 })
    await berth.json(['finish', s.id])
    const homeId = await berth.homeId()
    const helpers = async () => (await containersOf(officeDocker(), homeId)).filter((c) => c.Labels['berth.role'] === 'helper')
    expect(await helpers()).toHaveLength(1)
    // the same address under another url (a trailing slash): its trusted key is the same entry
    const twin = await berth.json(['server', 'add', 'office-twin', `${h.officeUrl}/`, '--identity', h.officeIdentity])
    expect(twin).toMatchObject({ name: 'office-twin', hostKeyFingerprint: h.officeFingerprint })
    expect(await berth.json(['server', 'rm', 'office'])).toEqual({ removed: true, helper: 'removed' })
    expect(await helpers()).toEqual([])
    // office-twin still uses 127.0.0.2:2222: its key stays trusted and it keeps working
    expect(readFileSync(join(berth.home, 'known_hosts'), 'utf8')).toMatch(/^\[127\.0\.0\.2\]:2222 ssh-ed25519 /m)
    expect((await berth.json(['server', 'test', 'office-twin'])).version).toMatch(/^\d+\.\d+/)
    expect(await berth.json(['server', 'rm', 'office-twin'])).toMatchObject({ removed: true })
    expect(readFileSync(join(berth.home, 'known_hosts'), 'utf8')).not.toContain('127.0.0.2')
    expect(await berth.json(['server', 'rm', 'office'])).toEqual({ removed: false })
    const local = await berth.run(['server', 'rm', 'local'])
    expect(local.code).toBe(1)
  })

  it('says a server is unreachable with exit 4 and a clear reason', async () => {
    const r = await berth.run(['server', 'add', 'nowhere', 'ssh://office@127.0.0.2:1', '--identity', h.officeIdentity, '--accept-host-key', h.officeFingerprint])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/^berth: server 127\.0\.0\.2 is unreachable: ECONNREFUSED office@127\.0\.0\.2:1\n$/)
  })
})

describe('a server whose sshd we control', () => {
  const berth = new BerthHome('sshd')
  const sshd = new PrivateSshd(22000 + Math.floor(Math.random() * 900))

  beforeAll(async () => {
    await sshd.start()
    await berth.addOffice('lab', sshd)
  })
  afterAll(async () => {
    await berth.cleanup()
    sshd.cleanup()
  })

  it('survives its ssh connection being killed mid-use: the next call runs on a new connection', async () => {
    const s = await berth.json(['session', 'create', '--server', 'lab', '--image', h.baseImage])
    const before = await berth.run(['exec', s.id, '--', 'echo', 'one'])
    expect(before.stdout).toBe('one\n')

    const long = berth.run(['exec', s.id, '--', 'sleep', '30'])
    await until(async () => (await berth.run(['exec', s.id, '--', 'pgrep', '-x', 'sleep'])).stdout.trim().split('\n').length >= 2, 'the long command to run')
    const pid = berth.daemonPid()!
    const children = await killSshdServing(pid, sshd.port)
    const cut = await long
    expect(cut.code).toBe(4)
    expect(cut.stderr).toContain('the connection to server lab dropped while the command ran')

    const after = await berth.run(['exec', s.id, '--', 'echo', 'two'])
    expect(after).toMatchObject({ code: 0, stdout: 'two\n' })
    const newChildren = sshdChildrenServing(pid, sshd.port)
    expect(newChildren.length).toBeGreaterThan(0)
    expect(newChildren.some((c) => children.includes(c))).toBe(false)
    await berth.json(['finish', s.id])
  })

  it('pause --all waits on no server that does not answer: the rest pause, its sessions are reported as running there', async () => {
    const remote = await berth.json(['session', 'create', '--server', 'lab', '--image', h.tinyImage])
    const here = await berth.json(['session', 'create', '--image', h.tinyImage])
    // lab goes silent the way a dead route does: something takes the connection and never answers
    await sshd.stop()
    const held = new Set<net.Socket>()
    const silent = net.createServer((socket) => void held.add(socket))
    await new Promise<void>((resolve) => silent.listen(sshd.port, '127.0.0.2', resolve))
    try {
      const t0 = Date.now()
      const r = await berth.run(['pause', '--all', '--wait', '--json'], { timeoutMs: 120_000 })
      // well under the 10 s an ssh connection waits for an answer
      expect((Date.now() - t0) / 1000).toBeLessThan(9)
      expect(r.code).toBe(4)
      const results: Array<{ id: string }> = JSON.parse(r.stdout).results
      expect(results.find((x) => x.id === here.id)).toMatchObject({ result: { paused: true, durable: true } })
      expect(results.find((x) => x.id === remote.id)).toMatchObject({
        error: { code: 'unreachable', message: `server lab did not answer within 3 s: ${remote.name} was not paused and keeps running there` },
      })
    } finally {
      for (const socket of held) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
      await sshd.start()
    }
    expect(await berth.json(['session', 'show', remote.id])).toMatchObject({ state: 'running' })
    await berth.json(['finish', remote.id])
    await berth.json(['finish', here.id])
  })

  it('refuses a changed host key, naming both fingerprints, and keeps the trusted one', async () => {
    const trusted = sshd.fingerprint()
    await sshd.stop()
    const changed = sshd.newHostKey()
    await sshd.start()
    const r = await berth.run(['server', 'test', 'lab'])
    expect(r.code).toBe(4)
    expect(r.stderr).toContain(trusted)
    expect(r.stderr).toContain(changed)
    expect(r.stderr).toContain('changed')
    const list = await berth.json(['server', 'ls'])
    expect(list.find((s: { name: string }) => s.name === 'lab').hostKeyFingerprint).toBe(trusted)
  })

  it('gives exit 4 and the reason when the server stops answering', async () => {
    await sshd.stop()
    const r = await berth.run(['session', 'create', '--server', 'lab', '--image', h.tinyImage])
    expect(r.code).toBe(4)
    expect(r.stderr).toMatch(/^berth: server lab is unreachable: ECONNREFUSED office@127\.0\.0\.2:\d+\n$/)
    const t = await berth.run(['server', 'test', 'lab', '--json'])
    expect(t.code).toBe(4)
    expect(JSON.parse(t.stdout).error.code).toBe('unreachable')
  })
})
