// A bookmarked ssh line keeps working: the route id names the session for its whole life, and the
// gateway finds the session wherever it runs now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { PrivateSshd, killSshdServing } from '../support/sshd'
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
    await berth.addOffice('lab', sshd)
  })

  afterAll(async () => {
    await berth.cleanup()
    sshd.cleanup()
    user.cleanup()
  })

  it('answers on the same ssh line before and after a pause and a resume, and tells an open connection why it ends', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage])
    expect((await user.ssh(port, s.route, 'echo kept > /workspace/mark; echo before')).stdout).toBe('before\n')
    // a connection open while the session pauses is told why it ends
    const open = user.ssh(port, s.route, 'echo started; sleep 600', { timeoutMs: 120_000 })
    await until(async () => (await user.ssh(port, s.route, 'ps -eo args')).stdout.includes('sleep 600'), 'the long command to run')
    const paused = await berth.json(['pause', s.id, '--wait'], { timeoutMs: 180_000 })
    expect(paused.paused).toBe(true)
    const cut = await open
    expect(cut.stdout).toBe('started\n')
    expect(cut.stderr).toContain(`session ${s.route} is pausing: this connection ends here; the same ssh line works again once it runs`)
    const resumed = await berth.json(['resume', s.id], { timeoutMs: 180_000 })
    expect(resumed.resumed).toBe(true)
    const after = await user.ssh(port, s.route, 'cat /workspace/mark')
    expect(after.stderr).toBe('')
    expect(after.stdout).toBe('kept\n')
    expect((await berth.json(['session', 'show', s.id])).sshLine).toBe(s.sshLine)
  })

  it('resumes an auto-paused session on connect and says so on stderr', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage])
    await user.ssh(port, s.route, 'echo idle-then-back > /workspace/mark')
    await berth.json(['session', 'set', s.id, '--idle', '2'])
    const paused = await until(async () => {
      const j = await berth.json(['session', 'show', s.id])
      return j.state === 'paused' && j.durable ? j : undefined
    }, 'the session to pause itself', 120_000)
    expect(paused.pausedBy).toBe('idle')
    // no auto-pause while this test talks to it again
    const r = await user.ssh(port, s.route, 'cat /workspace/mark', { timeoutMs: 180_000 })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('idle-then-back\n')
    expect(r.stderr).toContain(`berth: resuming session ${s.route} (paused automatically) ...`)
    expect(r.stderr).toMatch(new RegExp(`berth: session ${s.route} resumed \\((memory|frozen|disk)`))
    // (with an idle time of 2 s it may pause itself again right after: that is the setting working)
    await berth.json(['session', 'set', s.id, '--idle', 'off'])
  })

  it('does not resume a session the user paused, and says how, unless the setting allows it', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    await berth.json(['pause', s.id, '--wait'], { timeoutMs: 180_000 })
    const refused = await user.ssh(port, s.route, 'echo hi')
    expect(refused.code).toBe(255)
    expect(refused.stdout).toBe('')
    expect(refused.stderr).toContain(`berth: session ${s.route} was paused by you and stays paused; resume it with: berth resume ${s.route}`)
    const forward = await user.ssh(port, s.route, undefined, { extra: ['-W', 'localhost:80'] })
    expect(forward.code).toBe(255)
    expect((await berth.json(['session', 'show', s.id])).state).toBe('paused')

    await berth.json(['settings', 'set', 'resumeUserPausedOnConnect', 'true'])
    try {
      const allowed = await user.ssh(port, s.route, 'echo back', { timeoutMs: 180_000 })
      expect(allowed.stdout).toBe('back\n')
      expect(allowed.stderr).toContain(`berth: resuming session ${s.route} (paused by you) ...`)
      expect((await berth.json(['session', 'show', s.id])).state).toBe('running')
    } finally {
      await berth.json(['settings', 'set', 'resumeUserPausedOnConnect', 'false'])
    }
  })

  it("reaches a connected server's session again after Berth's connection to that server dropped", async () => {
    const s = await berth.json(['session', 'create', '--server', 'lab', '--image', testHost().tinyImage], { timeoutMs: 180_000 })
    const line = s.sshLine
    expect((await user.ssh(port, s.route, 'echo before')).stdout).toBe('before\n')
    const pid = berth.daemonPid()!
    await killSshdServing(pid, sshd.port)
    // the next connection through the gateway brings the server connection back by itself
    const after = await user.ssh(port, s.route, 'echo after')
    expect(after.stdout).toBe('after\n')
    expect((await berth.json(['session', 'show', s.id])).sshLine).toBe(line)
    await berth.json(['finish', s.id])
  })
})
