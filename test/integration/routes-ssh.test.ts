// A developer reaches their sessions with the tools they already use: ssh, scp, sftp, ssh -L, by a
// route id that never changes, through Berth's gateway. Real OpenSSH client, real engines.
import { createHash, randomBytes } from 'node:crypto'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, sleep, until } from '../support/berth'
import { SshUser, Tmux } from '../support/ssh-user'
import { testHost } from '../support/testhost'

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex')

/** A tiny HTTP server inside a session: perl with IO::Socket::INET (the base image has perl-base). */
const PERL_HTTP = `
use IO::Socket::INET; my ($addr, $port, $text) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => $addr, LocalPort => $port, Listen => 16, ReuseAddr => 1) or die "listen: $!";
while (my $c = $s->accept) { my $req = ""; while (<$c>) { $req .= $_; last if /^\\r?\\n$/ }
  my $b = "<h1>$text</h1>\\n"; print $c "HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\nContent-Length: " . length($b) . "\\r\\nConnection: close\\r\\n\\r\\n$b"; close $c }`

describe('ssh routes through the gateway', () => {
  const berth = new BerthHome('routes')
  const user = new SshUser('routes')
  const stranger = new SshUser('stranger')
  const base = testHost().baseImage
  let port = 0
  let a: { id: string; route: string; sshLine: string; containerId: string }
  let b: { id: string; route: string; containerId: string }

  beforeAll(async () => {
    ;({ port } = await user.startDaemon(berth))
    a = await berth.json(['session', 'create', '--image', base, '--name', 'alpha', '--env', 'GREETING=hello'])
    b = await berth.json(['session', 'create', '--image', base, '--name', 'beta'])
  })

  afterAll(async () => {
    await berth.cleanup()
    user.cleanup()
    stranger.cleanup()
  })

  it('shows the route and its ssh line, ready to copy', async () => {
    expect(a.route).toMatch(/^[a-z]+-[a-z]+-\d{2}$/)
    expect(a.sshLine).toBe(`ssh -p ${port} ${a.route}@127.0.0.1`)
    const shown = await berth.run(['session', 'show', 'alpha'])
    expect(shown.stdout).toContain(`route:     ${a.route}`)
    expect(shown.stdout).toContain(`ssh:       ssh -p ${port} ${a.route}@127.0.0.1`)
    const json = await berth.json(['session', 'show', a.route])
    expect(json).toMatchObject({ id: a.id, route: a.route, sshLine: a.sshLine })
  })

  it('runs commands with their output, stdin and exit codes', async () => {
    const r = await user.ssh(port, a.route, 'echo "$GREETING from $(hostname) in $PWD"; echo oops >&2; exit 7')
    expect(r.code).toBe(7)
    expect(r.stdout).toBe(`hello from ${a.route} in /workspace\n`)
    expect(r.stderr).toBe('oops\n')

    const ok = await user.ssh(port, a.route, 'true')
    expect(ok.code).toBe(0)
    const fails = await user.ssh(port, a.route, 'false')
    expect(fails.code).toBe(1)

    const input = randomBytes(3 * 1024 * 1024)
    const piped = await user.ssh(port, a.route, 'sha256sum | cut -d" " -f1', { input })
    expect(piped.stdout.trim()).toBe(sha256(input))

    // the same argv semantics as sshd: the command string goes to the user's shell
    const quoted = await user.ssh(port, a.route, `printf '%s|' "a b" c; echo`)
    expect(quoted.stdout).toBe('a b|c|\n')

  })

  it('passes env requests (SendEnv) to the command, and sets SSH_CONNECTION', async () => {
    const r = await user.ssh(port, a.route, 'echo "[$LC_BERTH_TEST] [$SSH_CONNECTION]"', {
      extra: ['-o', 'SendEnv=LC_BERTH_TEST'],
      env: { LC_BERTH_TEST: 'yes please' },
    })
    expect(r.stdout).toMatch(new RegExp(`^\\[yes please\\] \\[127\\.0\\.0\\.1 \\d+ 127\\.0\\.0\\.1 ${port}\\]\\n$`))
  })

  it('gives a pty shell whose window size follows the terminal, and hangs it up on disconnect', async () => {
    const tmux = new Tmux('routes')
    try {
      tmux.start('t', ['ssh', '-tt', ...user.options(), '-p', String(port), `${a.route}@127.0.0.1`], 100, 30, user.env())
      await until(() => /[#$] $/m.test(tmux.capture('t')), 'a shell prompt', 20_000)
      tmux.send('t', 'echo "size $(stty size) term $TERM tty $(tty)"')
      await until(() => /size 30 100 term \S+ tty \/dev\/pts\/\d+/.test(tmux.capture('t')), 'the first size', 10_000)
      tmux.resize('t', 132, 43)
      await sleep(300)
      tmux.send('t', 'echo "now $(stty size)"')
      await until(() => tmux.capture('t').includes('now 43 132'), 'the new size', 10_000)
      tmux.send('t', 'export MARK=kept; sleep 1000 &')
      tmux.send('t', 'echo "mark=$MARK"')
      await until(() => tmux.capture('t').includes('mark=kept'), 'the shell to keep its state', 10_000)
      const before = await user.ssh(port, a.route, 'ps -eo args | grep -c "^sleep 1000"')
      expect(before.stdout.trim()).toBe('1')
    } finally {
      tmux.kill()
    }
    // as with sshd, closing the terminal hangs up the shell and its jobs: nothing lingers in the session
    await until(async () => (await user.ssh(port, a.route, 'ps -eo args | grep -c "^sleep 1000" || true')).stdout.trim() === '0', 'the hung-up shell to go', 15_000)
  })

  it('copies a 10 MiB file both ways with scp, and lists it with sftp', async () => {
    const file = join(user.home, 'ten.bin')
    const data = randomBytes(10 * 1024 * 1024)
    writeFileSync(file, data)
    const up = await user.run('scp', [...user.options(), '-P', String(port), file, `${a.route}@127.0.0.1:/workspace/ten.bin`])
    expect(up.stderr).toBe('')
    expect(up.code).toBe(0)
    const inside = await user.ssh(port, a.route, 'sha256sum /workspace/ten.bin')
    expect(inside.stdout.split(' ')[0]).toBe(sha256(data))

    const back = join(user.home, 'back.bin')
    const down = await user.run('scp', [...user.options(), '-P', String(port), `${a.route}@127.0.0.1:ten.bin`, back])
    expect(down.code).toBe(0)
    expect(sha256(readFileSync(back))).toBe(sha256(data))

    // the legacy scp protocol (scp -O) runs `scp -t` through exec
    const legacy = await user.run('scp', ['-O', ...user.options(), '-P', String(port), file, `${a.route}@127.0.0.1:/tmp/legacy.bin`])
    expect(legacy.code).toBe(0)
    expect((await user.ssh(port, a.route, 'sha256sum /tmp/legacy.bin')).stdout.split(' ')[0]).toBe(sha256(data))

    const ls = await user.run('sftp', [...user.options(), '-P', String(port), '-b', '-', `${a.route}@127.0.0.1`], { input: 'cd /workspace\nls -l\n' })
    expect(ls.code).toBe(0)
    expect(ls.stdout).toMatch(/10485760 .* ten\.bin/)
  })

  it('serves git over ssh: clone from the session and push back', async () => {
    const made = await user.ssh(port, a.route, 'git init -q -b main /workspace/repo && cd /workspace/repo && echo one > f && git add f && git -c user.name=t -c user.email=t@t commit -qm one && git config receive.denyCurrentBranch updateInstead && echo ok')
    expect(made.stdout).toBe('ok\n')
    const gitSsh = `ssh ${user.options().map((o) => (o.includes(' ') ? `'${o}'` : o)).join(' ')}`
    const env = { ...process.env, ...user.env(), GIT_SSH_COMMAND: gitSsh }
    const clone = join(user.home, 'clone')
    execFileSync('git', ['clone', '-q', `ssh://${a.route}@127.0.0.1:${port}/workspace/repo`, clone], { env })
    expect(readFileSync(join(clone, 'f'), 'utf8')).toBe('one\n')
    writeFileSync(join(clone, 'f'), 'two\n')
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qam', 'two'], { cwd: clone, env })
    execFileSync('git', ['push', '-q', 'origin', 'main'], { cwd: clone, env })
    expect((await user.ssh(port, a.route, 'cat /workspace/repo/f')).stdout).toBe('two\n')
  })

  it('forwards ssh -L to a server listening inside the session, and nowhere else', async () => {
    // one server on the session's loopback only (as most dev servers), one on all its addresses
    writeFileSync(join(user.home, 'srv.pl'), PERL_HTTP)
    const upload = await user.run('scp', [...user.options(), '-P', String(port), join(user.home, 'srv.pl'), `${a.route}@127.0.0.1:/tmp/srv.pl`])
    expect(upload.code).toBe(0)
    await user.ssh(port, a.route, 'nohup perl /tmp/srv.pl 127.0.0.1 3000 "alpha here" >/dev/null 2>&1 &')
    await user.ssh(port, a.route, 'nohup perl /tmp/srv.pl 0.0.0.0 3001 "alpha everywhere" >/dev/null 2>&1 &')

    const local = 20000 + Math.floor(Math.random() * 20000)
    const tunnel = user.spawn('ssh', [...user.options(['-N', '-o', 'ExitOnForwardFailure=yes', '-L', `${local}:localhost:3000`]), '-p', String(port), `${a.route}@127.0.0.1`])
    try {
      const page = await until(async () => {
        const r = await fetch(`http://127.0.0.1:${local}/`).catch(() => undefined)
        return r?.ok ? await r.text() : undefined
      }, 'the tunnel to answer', 20_000)
      expect(page).toBe('<h1>alpha here</h1>\n')
      // a second connection through the same tunnel
      expect(await (await fetch(`http://127.0.0.1:${local}/again`)).text()).toBe('<h1>alpha here</h1>\n')
    } finally {
      tunnel.kill()
    }

    // editors' remote modes use dynamic forwarding (ssh -D, SOCKS) to the session's loopback
    const socks = 20000 + Math.floor(Math.random() * 20000)
    const dynamic = user.spawn('ssh', [...user.options(['-N', '-o', 'ExitOnForwardFailure=yes', '-D', `127.0.0.1:${socks}`]), '-p', String(port), `${a.route}@127.0.0.1`])
    try {
      const viaSocks = await until(() => {
        try {
          return execFileSync('curl', ['-s', '--max-time', '10', '--socks5-hostname', `127.0.0.1:${socks}`, 'http://localhost:3000/'], { encoding: 'utf8' })
        } catch {
          return undefined
        }
      }, 'the SOCKS forward to answer', 20_000)
      expect(viaSocks).toBe('<h1>alpha here</h1>\n')
    } finally {
      dynamic.kill()
    }

    const get = 'GET / HTTP/1.0\r\n\r\n'
    const viaW = await user.ssh(port, a.route, undefined, { extra: ['-W', 'localhost:3001'], input: get })
    expect(viaW.stdout).toContain('alpha everywhere')
    const byRoute = await user.ssh(port, a.route, undefined, { extra: ['-W', `${a.route}:3000`], input: get })
    expect(byRoute.stdout).toContain('alpha here')
    const closed = await user.ssh(port, a.route, undefined, { extra: ['-W', 'localhost:3999'], input: get })
    expect(closed.code).toBe(255)
    expect(closed.stderr).toContain('forwarding failed')
  })

  it("refuses a route's forward to another session's port, to the host and to other machines", async () => {
    await user.ssh(port, b.route, 'nohup perl -MIO::Socket::INET -e \'$s=IO::Socket::INET->new(LocalPort=>4000,Listen=>5,ReuseAddr=>1);while($c=$s->accept){print $c "beta secret\\n";close $c}\' >/dev/null 2>&1 &')
    const bIp = (await user.ssh(port, b.route, 'hostname -i')).stdout.trim().split(/\s+/)[0]!
    // beta serves on its own address, reachable from beta itself
    const own = await user.ssh(port, b.route, undefined, { extra: ['-W', 'localhost:4000'] })
    expect(own.stdout).toBe('beta secret\n')
    for (const target of [`${bIp}:4000`, `${b.route}:4000`, `${b.route}.berth:4000`, '127.0.0.2:2222', '172.17.0.1:22', 'example.com:80']) {
      const r = await user.ssh(port, a.route, undefined, { extra: ['-W', target] })
      expect(r.code, target).toBe(255)
      expect(r.stdout, target).toBe('')
      expect(r.stderr, target).toContain('forwarding failed')
    }
    // remote forwards (ssh -R) are not offered at all
    const reverse = await user.ssh(port, a.route, 'true', { extra: ['-o', 'ExitOnForwardFailure=yes', '-R', '0:localhost:22'] })
    expect(reverse.code).toBe(255)
    expect(reverse.stderr).toMatch(/remote port forwarding failed/i)
  })

  it('forwards the ssh agent only when the setting allows it', async () => {
    const started = execFileSync('ssh-agent', ['-s', '-a', join(user.home, 'agent.sock')], { encoding: 'utf8' })
    const agentPid = Number(/SSH_AGENT_PID=(\d+)/.exec(started)![1])
    const agentEnv = { SSH_AUTH_SOCK: join(user.home, 'agent.sock') }
    try {
      execFileSync('ssh-add', [user.key], { env: { ...process.env, ...agentEnv }, stdio: 'ignore' })
      const fingerprint = execFileSync('ssh-keygen', ['-lf', `${user.key}.pub`], { encoding: 'utf8' }).split(' ')[1]!
      const off = await user.ssh(port, a.route, 'echo "[${SSH_AUTH_SOCK:-}]"', { extra: ['-A'], env: agentEnv })
      expect(off.stdout).toBe('[]\n')
      await berth.json(['settings', 'set', 'allowAgentForwarding', 'true'])
      const on = await user.ssh(port, a.route, 'ssh-add -l; ls -ld "$(dirname "$SSH_AUTH_SOCK")" | cut -c1-10', { extra: ['-A'], env: agentEnv })
      expect(on.stderr).toBe('')
      expect(on.stdout).toContain(fingerprint)
      expect(on.stdout).toContain('drwx------')
      // without -A the session gets no agent even when allowed
      const notAsked = await user.ssh(port, a.route, 'echo "[${SSH_AUTH_SOCK:-}]"', { env: agentEnv })
      expect(notAsked.stdout).toBe('[]\n')
      // the relay leaves nothing behind
      await until(async () => (await user.ssh(port, a.route, 'ls -d /tmp/berth-agent-* 2>/dev/null | wc -l')).stdout.trim() === '0', 'the agent socket to go')
    } finally {
      await berth.json(['settings', 'set', 'allowAgentForwarding', 'false'])
      process.kill(agentPid, 'SIGTERM')
    }
  })

  it('refuses a wrong key, passwords, and unknown routes alike', async () => {
    const wrong = await stranger.ssh(port, a.route, 'true')
    expect(wrong.code).toBe(255)
    expect(wrong.stderr).toContain('Permission denied (publickey)')

    const password = await user.run('ssh', [...user.options(['-o', 'PubkeyAuthentication=no', '-o', 'PreferredAuthentications=password,keyboard-interactive']), '-p', String(port), `${a.route}@127.0.0.1`, 'true'])
    expect(password.code).toBe(255)
    expect(password.stderr).toContain('Permission denied (publickey)')

    const unknown = await user.ssh(port, 'no-such-99', 'true')
    expect(unknown.code).toBe(255)
    expect(unknown.stderr).toContain('Permission denied (publickey)')

    // a key added to the authorizedKeys setting works at once, and the settings reject garbage
    await berth.json(['settings', 'set', 'authorizedKeys', JSON.stringify([stranger.publicKey])])
    const allowed = await stranger.ssh(port, a.route, 'echo in')
    expect(allowed.stdout).toBe('in\n')
    const bad = await berth.run(['settings', 'set', 'authorizedKeys', '["not a key"]'])
    expect(bad.code).toBe(2)
    await berth.json(['settings', 'set', 'authorizedKeys', '[]'])
    expect((await stranger.ssh(port, a.route, 'true')).code).toBe(255)
  })

  it('refuses authorized_keys options and keys it cannot read in the setting, saying why, and changes nothing', async () => {
    const [type, blob] = stranger.publicKey.split(' ') as [string, string]
    const refused = async (line: string) => {
      const r = await berth.run(['settings', 'set', 'authorizedKeys', JSON.stringify([line])])
      expect(r.code, line).toBe(2)
      return r.stderr
    }
    // options the gateway could not honour: a key limited to one address, one command, or nothing
    for (const options of ['from="10.0.0.1"', 'command="true"', 'restrict', 'no-port-forwarding,no-pty']) {
      expect(await refused(`${options} ${type} ${blob} limited@laptop`)).toContain('authorized_keys options (from=, command=, restrict, ...) are not supported')
    }
    // a line that looks like a key and is none: a cut blob, another type's blob under an ed25519 label
    expect(await refused(`${type} ${blob.slice(0, 40)} cut@laptop`)).toContain('authorizedKeys[0] (ssh-ed25519')
    const rsa = execFileSync('sh', ['-c', `ssh-keygen -q -t rsa -b 2048 -N '' -f ${user.home}/rsa-probe && cut -d' ' -f2 ${user.home}/rsa-probe.pub`]).toString().trim()
    expect(await refused(`ssh-ed25519 ${rsa} mislabelled`)).toContain('is not a public key the gateway can read')
    expect(await refused(`ssh-dss AAAAB3NzaC1kc3MAAACBAP old`)).toContain('DSA keys are not accepted')
    expect(await berth.json(['settings', 'authorizedKeys'])).toEqual({ authorizedKeys: [] })
    expect((await stranger.ssh(port, a.route, 'true')).code).toBe(255)
  })

  it('offers modern algorithms only: ssh-audit finds no failure and no warning, and an old client cannot connect', async () => {
    // ssh-audit 3 (scripts/testhost.sh installs trixie's as ssh-audit3; its rate test is skipped, as
    // its burst of connections would count against this peer's limits for the tests after this one)
    const audit = (host: string, p: number) => {
      const r = spawnSync('ssh-audit3', ['-n', '-j', '--skip-rate-test', '-p', String(p), host], { encoding: 'utf8', timeout: 60_000 })
      if (r.error) throw new Error(`ssh-audit3 did not run (scripts/testhost.sh installs it): ${r.error.message}`)
      const report = JSON.parse(r.stdout) as Record<string, unknown> & Record<'kex' | 'key' | 'enc' | 'mac', Array<{ algorithm: string; notes: Record<string, string[]> }>>
      const flagged = (level: 'fail' | 'warn') => (['kex', 'key', 'enc', 'mac'] as const).flatMap((k) => report[k].filter((a) => a.notes[level]?.length).map((a) => `(${k}) ${a.algorithm}`))
      return { code: r.status, report, fails: flagged('fail'), warns: flagged('warn') }
    }
    const gateway = audit('127.0.0.1', port)
    expect(gateway.fails).toEqual([])
    expect(gateway.warns).toEqual([])
    expect(gateway.report.recommendations).toEqual({})
    expect(gateway.report.cves).toEqual([])
    expect(gateway.report.compression).toEqual(['none'])
    expect(gateway.code).toBe(0)
    // the same tool finds fault with Debian 12's own OpenSSH (the office server), so its silence counts
    const [officeHost, officePort] = testHost().officeUrl.replace(/^ssh:\/\/[^@]*@/, '').split(':') as [string, string]
    expect(audit(officeHost, Number(officePort)).fails.length).toBeGreaterThan(0)
    // a client that offers only what the gateway no longer does is turned away at the key exchange
    for (const [option, value, says] of [
      ['KexAlgorithms', 'ecdh-sha2-nistp256,diffie-hellman-group14-sha256', 'no matching key exchange method'],
      ['Ciphers', 'aes128-ctr,aes256-cbc', 'no matching cipher'],
      ['HostKeyAlgorithms', 'ecdsa-sha2-nistp256,rsa-sha2-512', 'no matching host key type'],
    ] as const) {
      // ssh takes the first value of an option: this LogLevel wins over the quiet one of user.options()
      const r = await user.run('ssh', ['-o', 'LogLevel=INFO', ...user.options(['-o', `${option}=${value}`]), '-p', String(port), `${a.route}@127.0.0.1`, 'true'])
      expect(r.code, option).toBe(255)
      expect(r.stderr, option).toContain(says)
    }
    expect((await user.ssh(port, a.route, 'echo modern')).stdout).toBe('modern\n')
  })

  it('reaches a session on the office server the same way, through the one persistent connection', async () => {
    await berth.addOffice()
    const o = await berth.json(['session', 'create', '--server', 'office', '--image', testHost().tinyImage], { timeoutMs: 180_000 })
    const r = await user.ssh(port, o.route, 'echo "on $(hostname)"; exit 4')
    expect(r.stdout).toBe(`on ${o.route}\n`)
    expect(r.code).toBe(4)
    const input = randomBytes(1024 * 1024)
    const piped = await user.ssh(port, o.route, 'md5sum', { input })
    expect(piped.stdout.split(' ')[0]).toBe(createHash('md5').update(input).digest('hex'))
    // a session without sftp-server says so instead of hanging
    const sftp = await user.run('sftp', [...user.options(), '-P', String(port), '-b', '-', `${o.route}@127.0.0.1`], { input: 'ls\n' })
    expect(sftp.code).not.toBe(0)
    expect(sftp.stderr).toContain('no sftp-server')
    await berth.json(['finish', o.id])
  })

  it('refuses the route of a finished session with "session finished"', async () => {
    const c = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    expect((await user.ssh(port, c.route, 'true')).code).toBe(0)
    await berth.json(['finish', c.id])
    const r = await user.ssh(port, c.route, 'true')
    expect(r.code).toBe(255)
    expect(r.stderr).toContain('session finished')
    const shown = await berth.json(['session', 'show', c.id])
    expect(shown.sshLine).toBeUndefined()
  })

  it('writes an ssh config with a Host block per session, kept current, that ssh uses as is', async () => {
    const printed = await berth.run(['ssh-config'])
    expect(printed.code).toBe(0)
    expect(printed.stdout).toContain(`Host ${a.route}.berth\n  HostName 127.0.0.1\n  Port ${port}\n  User ${a.route}\n  HostKeyAlias berth-gateway`)
    expect(printed.stdout).toContain(`IdentityFile ${user.key}`)

    const written = await berth.run(['ssh-config', '--write'])
    expect(written.code).toBe(0)
    const info = await berth.call('routes.info', {})
    const path = info.sshConfig.path
    expect(written.stdout).toContain(`Include ${path}`)
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe(printed.stdout)

    // the user's own config includes Berth's file; ssh then reaches the session by its Host name,
    // with the gateway's key pinned: no prompt, no known_hosts of the user's touched
    const userConfig = join(user.home, 'ssh_config')
    writeFileSync(userConfig, `${info.sshConfig.includeLine}\n`)
    const viaHost = await user.run('ssh', ['-F', userConfig, '-o', 'BatchMode=yes', `${a.route}.berth`, 'hostname'])
    expect(viaHost.stderr).toBe('')
    expect(viaHost.stdout).toBe(`${a.route}\n`)

    // a new session appears in the file by itself, a finished one leaves it
    const c = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    await until(() => readFileSync(path, 'utf8').includes(`Host ${c.route}.berth`), 'the new session in the file')
    const viaNew = await user.run('ssh', ['-F', userConfig, '-o', 'BatchMode=yes', `${c.route}.berth`, 'echo ok'])
    expect(viaNew.stdout).toBe('ok\n')
    await berth.json(['finish', c.id])
    await until(() => !readFileSync(path, 'utf8').includes(`Host ${c.route}.berth`), 'the finished session to leave the file')
    expect(existsSync(`${path}.tmp-${berth.daemonPid()}`)).toBe(false)
  })

  it('keeps its host key and port across a restart of Berth, so the same ssh line works', async () => {
    const before = await berth.call('routes.info', {})
    const keyFile = join(berth.home, 'ssh', 'gateway_host_ed25519_key')
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    await berth.run(['shutdown'])
    await user.startDaemon(berth)
    const after = await berth.call('routes.info', {})
    expect(after.gateway.hostKeyFingerprint).toBe(before.gateway.hostKeyFingerprint)
    expect(after.gateway.port).toBe(before.gateway.port)
    // StrictHostKeyChecking=yes against the known_hosts the first connection wrote
    const r = await user.run('ssh', [...user.options(['-o', 'StrictHostKeyChecking=yes']), '-p', String(after.gateway.port), `${a.route}@127.0.0.1`, 'echo same'])
    expect(r.stderr).toBe('')
    expect(r.stdout).toBe('same\n')
    const seen = execFileSync('ssh-keygen', ['-lf', user.knownHosts], { encoding: 'utf8' })
    expect(seen).toContain(before.gateway.hostKeyFingerprint)
  })

  it('moves to the next free port when the configured one is taken, and says which', async () => {
    const taken = (await berth.call('routes.info', {})).gateway.port
    const other = new BerthHome('routes-other')
    try {
      const second = await user.startDaemon(other)
      expect(second.port).not.toBe(taken)
      expect(second.port).toBeGreaterThan(taken)
      expect(readFileSync(join(other.home, 'logs', 'daemon.log'), 'utf8')).toContain(`ssh gateway listening on 127.0.0.1:${second.port}`)
      const cfg = await other.run(['ssh-config'])
      expect(cfg.code).toBe(0)
      const s = await other.json(['session', 'create', '--image', testHost().tinyImage])
      expect(s.sshLine).toBe(`ssh -p ${second.port} ${s.route}@127.0.0.1`)
      expect((await other.run(['ssh-config'])).stdout).toContain(`Port ${second.port}`)
      expect((await user.ssh(second.port, s.route, 'echo second')).stdout).toBe('second\n')
      // the settings move the gateway while Berth runs
      const wanted = second.port + 50
      await other.json(['settings', 'set', 'gatewayPort', String(wanted)])
      await until(async () => (await other.call('routes.info', {})).gateway.port === wanted, 'the gateway on its new port')
      expect((await user.ssh(wanted, s.route, 'echo moved')).stdout).toBe('moved\n')
    } finally {
      await other.cleanup()
    }
  })
})
