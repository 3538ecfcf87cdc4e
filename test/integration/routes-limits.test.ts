// The gateway stays bounded whatever clients do: many connections, clients that stop reading,
// clients that ignore the ssh window, guess keys or send garbage. The core never falls over and
// other sessions stay responsive.
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import net from 'node:net'
import { Client, type ClientChannel } from 'ssh2'
import { generateEd25519 } from '../../src/main/core/routes/host-key'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, sleep, until } from '../support/berth'
import { rssOf, SshUser, Tmux } from '../support/ssh-user'
import { testHost } from '../support/testhost'

const MiB = 1024 * 1024

describe('gateway limits', () => {
  const berth = new BerthHome('limits')
  const user = new SshUser('limits')
  let port = 0
  let a: { id: string; route: string }
  let b: { id: string; route: string }

  /** An ssh2 client as this user: the tool for clients that misbehave on purpose. */
  const connect = (route: string, opts: Partial<import('ssh2').ConnectConfig> = {}): Promise<Client> =>
    new Promise((resolve, reject) => {
      const c = new Client()
      c.once('ready', () => resolve(c))
      c.once('error', reject)
      c.connect({ host: '127.0.0.1', port, username: route, privateKey: readFileSync(user.key), readyTimeout: 20_000, ...opts })
    })
  const exec = (c: Client, command: string): Promise<ClientChannel> =>
    new Promise((resolve, reject) => c.exec(command, (err, ch) => (err ? reject(err) : resolve(ch))))
  const daemonRss = () => rssOf(berth.daemonPid()!)

  beforeAll(async () => {
    ;({ port } = await user.startDaemon(berth))
    a = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'busy'])
    b = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'quiet'])
    const made = await user.ssh(port, a.route, 'head -c 256M /dev/zero > /tmp/big && ls -l /tmp/big')
    expect(made.code).toBe(0)
  })

  afterAll(async () => {
    await berth.cleanup()
    user.cleanup()
  })

  // dockerd starts about two execs a second on this 2-core machine: the loop takes a while
  it("takes 200 connections in a bounded loop while another session's shell stays responsive", { timeout: 600_000 }, async () => {
    const tmux = new Tmux('limits')
    try {
      tmux.start('quiet', ['ssh', '-tt', ...user.options(), '-p', String(port), `${b.route}@127.0.0.1`], 100, 30, user.env())
      await until(() => /[#$] $/m.test(tmux.capture('quiet')), 'a shell prompt', 20_000)
      const latencies: number[] = []
      let storming = true
      const probe = (async () => {
        for (let i = 0; storming; i++) {
          const t0 = Date.now()
          tmux.send('quiet', `echo tick-${i}-done`)
          await until(() => tmux.capture('quiet').includes(`tick-${i}-done\n`), `tick ${i}`, 20_000)
          latencies.push(Date.now() - t0)
          await sleep(250)
        }
      })()
      const codes: number[] = []
      let next = 0
      const worker = async () => {
        while (next < 200) {
          next++
          codes.push((await user.ssh(port, a.route, 'true', { timeoutMs: 60_000 })).code)
        }
      }
      await Promise.all(Array.from({ length: 8 }, worker))
      storming = false
      await probe
      expect(codes.length).toBe(200)
      expect(codes.filter((c) => c !== 0)).toEqual([])
      latencies.sort((x, y) => x - y)
      expect(latencies.length).toBeGreaterThan(5)
      // the quiet session's shell answered every probe within a couple of seconds, under the storm
      expect(latencies[latencies.length - 1]).toBeLessThan(3000)
      const info = await berth.call('routes.info', {})
      expect(info.gateway.connections).toBeLessThanOrEqual(2)
    } finally {
      tmux.kill()
    }
  })

  it('does not grow when a client stops reading during a cat of a large file, and delivers it all after', async () => {
    const before = daemonRss()
    const child = user.spawn('ssh', [...user.options(), '-p', String(port), `${a.route}@127.0.0.1`, 'cat /tmp/big'])
    child.stdin!.end()
    // nobody reads child.stdout: the pipe fills, ssh stops reading its channel, the window closes
    let peak = before
    for (let i = 0; i < 16; i++) {
      await sleep(500)
      peak = Math.max(peak, daemonRss())
    }
    expect(peak - before).toBeLessThan(48 * MiB)
    let bytes = 0
    child.stdout!.on('data', (d: Buffer) => (bytes += d.length))
    const code = await new Promise<number | null>((r) => child.on('close', r))
    expect(code).toBe(0)
    expect(bytes).toBe(256 * MiB)
  })

  it('bounds what it queues for a client that grants a huge window and stops reading its socket', async () => {
    const c = await connect(a.route)
    try {
      const ch = await exec(c, 'cat /tmp/big')
      // grant the gateway ~4 GiB of window, then stop reading the TCP socket altogether
      const proto = (c as unknown as { _protocol: { channelWindowAdjust(id: number, n: number): void } })._protocol
      const remoteId = (ch as unknown as { outgoing: { id: number } }).outgoing.id
      proto.channelWindowAdjust(remoteId, 0xffffffff - 4 * MiB)
      ;(c as unknown as { _sock: net.Socket })._sock.pause()
      const before = daemonRss()
      let peak = before
      for (let i = 0; i < 16; i++) {
        await sleep(500)
        peak = Math.max(peak, daemonRss())
      }
      expect(peak - before).toBeLessThan(48 * MiB)
    } finally {
      c.end()
      ;(c as unknown as { _sock: net.Socket })._sock.destroy()
    }
    expect((await user.ssh(port, a.route, 'echo alive')).stdout).toBe('alive\n')
  })

  it('cuts a client that sends past its window, and stays up', async () => {
    const c = await connect(a.route)
    const closed = new Promise<void>((r) => c.once('close', () => r()))
    c.on('error', () => undefined)
    const ch = await exec(c, 'sleep 60')
    const proto = (c as unknown as { _protocol: { channelData(id: number, d: Buffer): void } })._protocol
    const remoteId = (ch as unknown as { outgoing: { id: number } }).outgoing.id
    const before = daemonRss()
    // packets a little larger than ssh2's 32 KiB: the window goes negative instead of reaching 0,
    // and ssh2's own check (window === 0) lets everything after through
    const chunk = randomBytes(33_000)
    // 64 MiB straight into the protocol, ignoring the 2 MiB window the gateway granted
    for (let i = 0; i < 2000; i++) {
      try {
        proto.channelData(remoteId, chunk)
      } catch {
        break
      }
      if (i % 64 === 0) await sleep(1)
    }
    await Promise.race([closed, sleep(20_000).then(() => Promise.reject(new Error('the gateway kept the connection')))])
    expect(daemonRss() - before).toBeLessThan(48 * MiB)
    expect((await user.ssh(port, a.route, 'echo alive')).stdout).toBe('alive\n')
  })

  it('ends a connection after too many authentication attempts', async () => {
    let attempts = 0
    const err = await new Promise<Error>((resolve) => {
      const c = new Client()
      c.on('error', resolve)
      c.on('close', () => resolve(new Error('closed')))
      c.on('ready', () => resolve(new Error('authenticated?!')))
      c.connect({
        host: '127.0.0.1',
        port,
        username: a.route,
        readyTimeout: 20_000,
        authHandler: (_left, _partial, next) => {
          attempts++
          if (attempts > 40) return next(false as never)
          next({ type: 'publickey', username: a.route, key: generateEd25519().private } as never)
        },
      })
    })
    expect(err.message).not.toContain('authenticated?!')
    expect(attempts).toBeLessThanOrEqual(12)
  })

  it('refuses connections to one route past its limit with a clear message, and takes new ones when some close', async () => {
    const held: Client[] = []
    try {
      for (let i = 0; i < 8; i++) held.push(...(await Promise.all(Array.from({ length: 8 }, () => connect(b.route)))))
      const extra = await connect(b.route)
      let stderr = ''
      // the refusal arrives right behind the exec's success: listen from inside the callback
      const code = await new Promise<number>((resolve, reject) =>
        extra.exec('true', (err, ch) => {
          if (err) return reject(err)
          ch.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
          ch.on('exit', (c: number) => resolve(c))
          ch.resume()
        }),
      )
      expect(code).toBe(255)
      expect(stderr).toContain(`too many ssh connections to ${b.route}`)
      extra.end()
      // another route is not affected
      expect((await user.ssh(port, a.route, 'echo other')).stdout).toBe('other\n')
      held.pop()!.end()
      await sleep(300)
      expect((await user.ssh(port, b.route, 'echo again')).stdout).toBe('again\n')
    } finally {
      for (const c of held) c.end()
    }
  })

  it('shrugs off odd requests: repeated starts, requests out of order, floods of env, odd sizes and names', async () => {
    const c = await connect(a.route)
    c.on('error', () => undefined)
    type Proto = {
      shell(ch: number, reply: boolean): void
      exec(ch: number, cmd: string, reply: boolean): void
      subsystem(ch: number, name: string, reply: boolean): void
      windowChange(ch: number, rows: number, cols: number, h: number, w: number): void
      pty(ch: number, rows: number, cols: number, h: number, w: number, term: string, modes: unknown, reply: boolean): void
      signal(ch: number, name: string): void
      env(ch: number, key: string, val: string, reply: boolean): void
      openssh_agentForward(ch: number, reply: boolean): void
    }
    const proto = (c as unknown as { _protocol: Proto })._protocol
    const ch = await exec(c, 'echo first; sleep 2; echo done')
    const id = (ch as unknown as { outgoing: { id: number } }).outgoing.id
    let out = ''
    ch.on('data', (d: Buffer) => (out += d.toString()))
    ch.stderr.resume()
    for (let i = 0; i < 200; i++) proto.env(id, `X${i}`, 'v'.repeat(20_000), true)
    proto.shell(id, true)
    proto.exec(id, 'echo second', true)
    proto.subsystem(id, 'sftp', true)
    proto.subsystem(id, 'no-such-subsystem', true)
    proto.windowChange(id, 0, 0, 0, 0)
    proto.windowChange(id, 1_000_000, 1_000_000, 0, 0)
    proto.pty(id, 0, 99999, 0, 0, 'x\u0000y; rm -rf /', undefined, true)
    proto.openssh_agentForward(id, true)
    const code = await new Promise<number>((r) => ch.on('exit', (x: number) => r(x)))
    expect(code).toBe(0)
    expect(out).toBe('first\ndone\n')
    // channels nobody may open: a remote listener, a unix socket, a subsystem that does not exist
    await expect(new Promise((res, rej) => c.forwardIn('127.0.0.1', 0, (e) => (e ? rej(e) : res(undefined))))).rejects.toThrow()
    await expect(new Promise((res, rej) => c.openssh_forwardOutStreamLocal('/var/run/docker.sock', (e) => (e ? rej(e) : res(undefined))))).rejects.toThrow()
    await expect(new Promise((res, rej) => c.subsys('no-such-subsystem', (e) => (e ? rej(e) : res(undefined))))).rejects.toThrow()
    // a pty with absurd sizes still gives a working shell
    const shell = await new Promise<ClientChannel>((res, rej) =>
      c.shell({ rows: 0, cols: 1_000_000, term: 'bogus term' }, (e, s) => (e ? rej(e) : res(s))),
    )
    let screen = ''
    shell.on('data', (d: Buffer) => (screen += d.toString()))
    shell.write('echo "shell $((6*7))"; exit\n')
    await new Promise<void>((r) => shell.on('close', () => r()))
    expect(screen).toContain('shell 42')
    // a signal request reaches the command (as sshd delivers it)
    const trapped = await exec(c, 'trap "echo got-int; exit 3" INT; echo ready; sleep 30 & wait')
    let said = ''
    trapped.on('data', (d: Buffer) => (said += d.toString()))
    trapped.stderr.resume()
    await until(() => said.includes('ready'), 'the command to start')
    trapped.signal('INT')
    const trappedCode = await new Promise<number>((r) => trapped.on('exit', (x: number) => r(x)))
    expect(said).toBe('ready\ngot-int\n')
    expect(trappedCode).toBe(3)
    c.end()
    expect((await user.ssh(port, a.route, 'echo fine')).stdout).toBe('fine\n')
  })

  it('survives garbage on its port', async () => {
    for (const payload of [randomBytes(256 * 1024), Buffer.concat([Buffer.from('SSH-2.0-garbage\r\n'), randomBytes(64 * 1024)]), Buffer.from('GET / HTTP/1.1\r\n\r\n')]) {
      await new Promise<void>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => s.end(payload))
        s.on('error', () => resolve())
        s.on('close', () => resolve())
        s.resume()
      })
    }
    expect((await user.ssh(port, a.route, 'echo still here')).stdout).toBe('still here\n')
  })

  it('drops a peer\'s connections at once while too many of its connections have not authenticated', async () => {
    // silent TCP connections (a slow scanner): each holds a place until the auth timeout
    const silent: net.Socket[] = []
    try {
      for (let i = 0; i < 16; i++) {
        const s = net.connect(port, '127.0.0.1')
        s.on('error', () => undefined)
        await new Promise<void>((r) => s.once('connect', () => r()))
        silent.push(s)
      }
      await sleep(200)
      const t0 = Date.now()
      const r = await user.ssh(port, a.route, 'echo in')
      expect(r.code).toBe(255)
      expect(Date.now() - t0).toBeLessThan(5000)
    } finally {
      for (const s of silent) s.destroy()
    }
    await sleep(300)
    expect((await user.ssh(port, a.route, 'echo in')).stdout).toBe('in\n')
  })

  // last: it holds the test's own address off for the failure window (60 s)
  it('holds off a peer that keeps failing to authenticate, says so once, and lets it in after the window', { timeout: 300_000 }, async () => {
    const stranger = new SshUser('limits-stranger')
    try {
      let failures = 0
      const t0 = Date.now()
      for (let i = 0; i < 40; i++) {
        const r = await stranger.ssh(port, a.route, 'true')
        expect(r.code).toBe(255)
        if (!r.stderr.includes('Permission denied (publickey)')) break
        failures++
      }
      // 30 refusals in the window (one may be an earlier test's); the next connection is dropped before the handshake
      expect(failures).toBeGreaterThanOrEqual(28)
      expect(failures).toBeLessThanOrEqual(30)
      expect(Date.now() - t0).toBeLessThan(60_000)
      const held = await user.ssh(port, a.route, 'echo in')
      expect(held.code).toBe(255)
      expect(held.stderr).not.toContain('Permission denied')
      const log = readFileSync(join(berth.home, 'logs', 'daemon.log'), 'utf8')
      expect(log.split('\n').filter((l) => l.includes('ssh gateway: refusing new connections from 127.0.0.1 for now: 30 failed connections in the last 60 s'))).toHaveLength(1)
      // a connection held off is not a failure: the budget frees as the window passes
      await until(async () => (await user.ssh(port, a.route, 'echo in')).stdout === 'in\n', 'the failure window to pass', 120_000)
      expect(Date.now() - t0).toBeGreaterThan(30_000)
    } finally {
      stranger.cleanup()
    }
  })
})
