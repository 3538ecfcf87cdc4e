// A bookmarked ssh line keeps working: the route id names the session for its whole life, and the
// gateway finds the session wherever it runs now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { PrivateSshd, sshdChildrenServing } from '../support/sshd'
import { SshUser } from '../support/ssh-user'
import { testHost } from '../support/testhost'

describe('the same ssh line, whatever happens to the session', () => {
  const berth = new BerthHome('stable')
  const user = new SshUser('stable')
  const sshd = new PrivateSshd(22000 + Math.floor(Math.random() * 2000))
  let port = 0

  beforeAll(async () => {
    ;({ port } = await user.startDaemon(berth))
    await sshd.start()
    await berth.json(['server', 'add', 'lab', sshd.url, '--identity', testHost().officeIdentity, '--accept-host-key', sshd.fingerprint()])
  })

  afterAll(async () => {
    await berth.cleanup()
    sshd.cleanup()
    user.cleanup()
  })

  it("reaches a connected server's session again after Berth's connection to that server dropped", async () => {
    const s = await berth.json(['session', 'create', '--server', 'lab', '--image', testHost().tinyImage], { timeoutMs: 180_000 })
    const line = s.sshLine
    expect((await user.ssh(port, s.route, 'echo before')).stdout).toBe('before\n')
    const pid = berth.daemonPid()!
    const children = await until(() => {
      const c = sshdChildrenServing(pid, sshd.port)
      return c.length ? c : undefined
    }, 'the sshd child serving the daemon')
    for (const child of children) process.kill(child, 'SIGKILL')
    // the next connection through the gateway brings the server connection back by itself
    const after = await user.ssh(port, s.route, 'echo after')
    expect(after.stdout).toBe('after\n')
    expect((await berth.json(['session', 'show', s.id])).sshLine).toBe(line)
    await berth.json(['finish', s.id])
  })
})
