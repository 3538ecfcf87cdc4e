// A developer who already reaches the office box with `ssh office-box`: Berth takes the same
// name, honours the same ~/.ssh/config (HostName, User, Port, IdentityFile, ProxyJump) and trusts
// the host keys that ssh already trusts (hashed known_hosts too), through real OpenSSH.
import { execFileSync } from 'node:child_process'
import { copyFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome } from '../support/berth'
import { PrivateSshd, sshdChildrenServing } from '../support/sshd'
import { testHost } from '../support/testhost'

const h = testHost()
const OFFICE_PORT = Number(/:(\d+)$/.exec(h.officeUrl)![1])

/** A user's HOME with ~/.ssh: their key, their config, their known_hosts (hashed by ssh-keygen -H). */
class UserSsh {
  readonly home = mkdtempSync(join(tmpdir(), 'berth-sshuser-'))
  readonly dir = join(this.home, '.ssh')

  constructor() {
    mkdirSync(this.dir, { mode: 0o700 })
    copyFileSync(h.officeIdentity, join(this.dir, 'office_key'))
    chmodSync(join(this.dir, 'office_key'), 0o600)
  }

  config(text: string): void {
    writeFileSync(join(this.dir, 'config'), text)
  }

  /** Trusts what the host presents now, as `ssh-keyscan >> known_hosts; ssh-keygen -H` would. */
  trust(port: number): void {
    const scanned = execFileSync('ssh-keyscan', ['-t', 'ed25519', '-p', String(port), '127.0.0.2'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const file = join(this.dir, 'known_hosts')
    writeFileSync(file, (existsSync(file) ? readFileSync(file, 'utf8') : '') + scanned)
    execFileSync('ssh-keygen', ['-H', '-f', file], { stdio: 'ignore' })
    rmSync(`${file}.old`, { force: true })
  }

  env(): Record<string, string> {
    // no agent: the keys are the config's
    return { HOME: this.home, SSH_AUTH_SOCK: '' }
  }
}

describe('server add takes what ssh takes', () => {
  const user = new UserSsh()
  const berth = new BerthHome('sshcfg')
  const jump = new PrivateSshd(24000 + Math.floor(Math.random() * 900))
  const env = () => user.env()
  beforeAll(() => jump.start())
  afterAll(async () => {
    await berth.cleanup()
    jump.cleanup()
    rmSync(user.home, { recursive: true, force: true })
  })

  it('adds a Host of ~/.ssh/config by its name, with no fingerprint to paste when known_hosts (hashed) trusts it', async () => {
    user.config(`Host office-box\n  HostName 127.0.0.2\n  Port ${OFFICE_PORT}\n  User office\n  IdentityFile ~/.ssh/office_key\n`)
    const unconfirmed = await berth.run(['server', 'add', 'office', 'office-box'], { env: env() })
    expect(unconfirmed.code).toBe(4)
    expect(unconfirmed.stderr).toContain(`confirm the host key of 127.0.0.2:${OFFICE_PORT}: it is ${h.officeFingerprint}`)

    user.trust(OFFICE_PORT)
    expect(readFileSync(join(user.dir, 'known_hosts'), 'utf8')).toMatch(/^\|1\|/)
    const added = await berth.run(['server', 'add', 'office', 'office-box'], { env: env() })
    expect(added.code, added.stderr).toBe(0)
    expect(added.stdout).toContain(`server office added: its host key ${h.officeFingerprint} is the one you already trust: found in ~/.ssh/known_hosts line 1 (hashed)`)
    expect(added.stdout).toMatch(/^url: +ssh:\/\/office@127\.0\.0\.2:2222$/m)
    expect(added.stdout).toMatch(/^ssh config: +Host office-box of ~\/\.ssh\/config/m)
    const test = await berth.json(['server', 'test', 'office'], { env: env() })
    expect(test.version).toMatch(/^\d+\.\d+/)
    const [office] = (await berth.json(['server', 'ls'], { env: env() })).filter((s: { name: string }) => s.name === 'office')
    expect(office).toMatchObject({ alias: 'office-box', url: h.officeUrl, identity: null })
  })

  it('refuses a host whose key differs from the one known_hosts has, storing nothing', async () => {
    const other = new UserSsh()
    try {
      writeFileSync(join(other.dir, 'known_hosts'), `[127.0.0.2]:${OFFICE_PORT} ${readFileSync(join(jump.dir, 'host_key.pub'), 'utf8')}`)
      other.config(`Host office-box\n  HostName 127.0.0.2\n  Port ${OFFICE_PORT}\n  User office\n  IdentityFile ~/.ssh/office_key\n`)
      const fresh = new BerthHome('sshcfg-changed')
      try {
        const r = await fresh.run(['server', 'add', 'office', 'office-box', '--json'], { env: other.env() })
        expect(r.code).toBe(4)
        expect(JSON.parse(r.stdout).error.code).toBe('host_key_mismatch')
        expect(r.stderr).toContain(`~/.ssh/known_hosts line 1 has ${jump.fingerprint()}, the server presents ${h.officeFingerprint}; nothing was stored`)
        expect((await fresh.json(['server', 'ls'], { env: other.env() })).map((s: { name: string }) => s.name)).toEqual(['local'])
      } finally {
        await fresh.cleanup()
      }
    } finally {
      rmSync(other.home, { recursive: true, force: true })
    }
  })

  it('goes through a ProxyJump host, reads the config again on the next connection, and says which hop failed', async () => {
    user.trust(jump.port)
    const direct = `Host office-box\n  HostName 127.0.0.2\n  Port ${OFFICE_PORT}\n  User office\n  IdentityFile ~/.ssh/office_key\n`
    const viaJump = `Host gate\n  HostName 127.0.0.2\n  Port ${jump.port}\n  User office\n  IdentityFile ~/.ssh/office_key\nHost behind-gate\n  HostName 127.0.0.2\n  Port ${OFFICE_PORT}\n  User office\n  IdentityFile ~/.ssh/office_key\n  ProxyJump gate\n`
    user.config(direct + viaJump)
    const added = await berth.run(['server', 'add', 'gated', 'behind-gate'], { env: env() })
    expect(added.code, added.stderr).toBe(0)
    // the office host key was trusted already (Berth recorded it with the first server)
    expect(added.stdout).toContain('server gated added:')
    const pid = berth.daemonPid()!
    expect(sshdChildrenServing(pid, jump.port).length).toBeGreaterThan(0)
    expect((await berth.json(['server', 'test', 'gated'], { env: env() })).version).toMatch(/^\d+/)

    // the jump host goes away: the server is unreachable, and the message names the hop
    await jump.stop()
    const down = await berth.run(['server', 'test', 'gated'], { env: env() })
    expect(down.code).toBe(4)
    expect(down.stderr).toContain(`server gated is unreachable: ECONNREFUSED office@127.0.0.2:${jump.port}`)

    // the same Host without its ProxyJump: Berth reads the config again on the next connection
    user.config(direct + viaJump.replace('  ProxyJump gate\n', ''))
    const back = await berth.run(['server', 'test', 'gated'], { env: env() })
    expect(back.code, back.stderr).toBe(0)
    expect(sshdChildrenServing(pid, OFFICE_PORT).length).toBeGreaterThan(0)
    await jump.start()
  })
})
