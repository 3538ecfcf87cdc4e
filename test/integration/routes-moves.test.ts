// The ssh line and the preview address of a session stay the same when its container is replaced
// (a restart) and when the session moves to the office server and back: both re-resolve to
// wherever the session runs now.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { SshUser } from '../support/ssh-user'
import { testHost } from '../support/testhost'
import { PERL_WEB, previewGet, previewHost } from '../support/preview-web'

describe('the same ssh line and preview address when the container is replaced or moves', () => {
  const berth = new BerthHome('moves')
  const user = new SshUser('moves')
  let port = 0
  let previewPort = 0

  beforeAll(async () => {
    ;({ port, previewPort } = await user.startDaemon(berth))
    await berth.addOffice()
  })

  afterAll(async () => {
    await berth.cleanup()
    user.cleanup()
  })

  /** the preview address each session had first: it must never change */
  const firstHost = new Map<string, string>()

  /** Starts the page server in the session unless it already answers (processes started over exec end with a pause). */
  async function serve(route: string, text: string): Promise<void> {
    writeFileSync(join(user.home, 'web.pl'), PERL_WEB)
    const up = await user.run('scp', [...user.options(), '-P', String(port), join(user.home, 'web.pl'), `${route}@127.0.0.1:/tmp/web.pl`])
    expect(up.code).toBe(0)
    // the pid written before a pause or a move may belong to another process now, even this very
    // shell (whose own command line names web.pl): end it only if it is still the page server
    const isServer = `[ "$old" != "$$" ] && tr '\\0' ' ' 2>/dev/null < /proc/$old/cmdline | grep -q '^perl /tmp/web.pl '`
    const stopOld = `old=$(cat /tmp/web.pid 2>/dev/null); if [ -n "$old" ] && ${isServer}; then kill $old; i=0; while [ $i -lt 30 ] && ${isServer}; do sleep 0.1; i=$((i+1)); done; fi`
    const started = await user.ssh(port, route, `${stopOld}; nohup perl /tmp/web.pl 3000 "${text}" >/dev/null 2>&1 & echo $! > /tmp/web.pid`)
    expect(started.code).toBe(0)
    const host = await previewHost(berth, route, 3000)
    expect(host).toBe(firstHost.get(route) ?? host)
    firstHost.set(route, host)
    await until(async () => {
      const page = await previewGet(previewPort, host)
      if (!page.body.includes(text)) throw new Error(`the preview answered ${page.status}: ${page.body.slice(0, 200)}`)
      return true
    }, `the page "${text}"`, 30_000)
  }

  it('keeps both across a restart (a new container, the same files)', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage])
    await user.ssh(port, s.route, 'echo kept > /workspace/mark')
    await serve(s.route, 'before restart')
    const restarted = await berth.json(['restart', s.id], { timeoutMs: 180_000 })
    expect(restarted.state).toBe('running')
    expect(restarted.containerId).not.toBe(s.containerId)
    const r = await user.ssh(port, s.route, 'cat /workspace/mark; hostname')
    expect(r.stdout).toBe(`kept\n${s.route}\n`)
    await serve(s.route, 'after restart')
    expect((await berth.json(['session', 'show', s.id])).sshLine).toBe(s.sshLine)
  })

  it('keeps both across a move to the office server and back', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'traveller'])
    const line = s.sshLine
    await user.ssh(port, s.route, 'echo from-the-laptop > /workspace/mark')
    await serve(s.route, 'served on the laptop')
    await berth.json(['pause', s.id, '--wait'], { timeoutMs: 180_000 })

    const moved = await berth.json(['resume', s.id, '--on', 'office'], { timeoutMs: 300_000 })
    expect(moved.session).toMatchObject({ id: s.id, route: s.route, server: 'office', state: 'running' })
    // the bookmarked line, unchanged, now lands on the office server
    const there = await user.ssh(port, s.route, 'cat /workspace/mark; hostname')
    expect(there.code).toBe(0)
    expect(there.stdout).toBe(`from-the-laptop\n${s.route}\n`)
    expect((await berth.json(['session', 'show', s.id])).sshLine).toBe(line)
    await serve(s.route, 'served on the office server')

    await user.ssh(port, s.route, 'echo from-the-office >> /workspace/mark')
    await berth.json(['pause', s.id, '--wait'], { timeoutMs: 180_000 })
    const back = await berth.json(['resume', s.id, '--on', 'local'], { timeoutMs: 300_000 })
    expect(back.session).toMatchObject({ id: s.id, route: s.route, server: 'local', state: 'running' })
    expect((await user.ssh(port, s.route, 'cat /workspace/mark')).stdout).toBe('from-the-laptop\nfrom-the-office\n')
    await serve(s.route, 'served on the laptop again')
  })
})
