// A private OpenSSH sshd in front of the office engine, owned by one test: it can be stopped,
// killed, or restarted with another host key without disturbing anyone else's connection.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testHost } from './testhost'
import { sleep, until } from './berth'

export class PrivateSshd {
  readonly dir = mkdtempSync(join(tmpdir(), 'berth-sshd-'))
  private proc: ChildProcess | undefined

  /**
   * `address` it listens on; `netns`: the network namespace it runs in (its own link to cut);
   * `dockerHost`: the engine its users reach (default: the shared office engine), e.g. a private
   * dockerd's, so a test may break that engine's CRIU without touching the shared one
   */
  constructor(
    readonly port: number,
    readonly opts: { address?: string; netns?: string; dockerHost?: string } = {},
  ) {
    this.newHostKey()
  }

  get address(): string {
    return this.opts.address ?? '127.0.0.2'
  }

  get url(): string {
    return `ssh://office@${this.address}:${this.port}`
  }

  newHostKey(): string {
    rmSync(join(this.dir, 'host_key'), { force: true })
    rmSync(join(this.dir, 'host_key.pub'), { force: true })
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(this.dir, 'host_key')])
    return this.fingerprint()
  }

  fingerprint(): string {
    return execFileSync('ssh-keygen', ['-lf', join(this.dir, 'host_key.pub')], { encoding: 'utf8' }).split(' ')[1]!
  }

  async start(): Promise<void> {
    const h = testHost()
    writeFileSync(
      join(this.dir, 'sshd_config'),
      [
        `Port ${this.port}`,
        `ListenAddress ${this.address}`,
        `HostKey ${join(this.dir, 'host_key')}`,
        `PidFile ${join(this.dir, 'sshd.pid')}`,
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'AllowUsers office',
        `SetEnv DOCKER_HOST=${this.opts.dockerHost ?? `unix://${h.officeSocket}`}`,
      ].join('\n') + '\n',
    )
    const sshd = ['/usr/sbin/sshd', '-D', '-e', '-f', join(this.dir, 'sshd_config')]
    const cmd = this.opts.netns ? ['ip', 'netns', 'exec', this.opts.netns, ...sshd] : sshd
    this.proc = spawn(cmd[0]!, cmd.slice(1), { stdio: 'ignore' })
    for (let i = 0; i < 100; i++) {
      try {
        execFileSync('ssh', ['-i', h.officeIdentity, '-p', String(this.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no',
          '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `office@${this.address}`, 'true'], { stdio: 'ignore', timeout: 5000 })
        return
      } catch {
        await sleep(100)
      }
    }
    throw new Error(`the private sshd on port ${this.port} did not start`)
  }

  /**
   * The server goes away as a crashed sshd does: its listener and the processes serving CLIENT_PID's
   * connections die at once (the connection resets), while what those connections started on the
   * server (Berth's detached jobs) goes on. start() brings it back on the same port and key.
   */
  crash(clientPid: number): void {
    const p = this.proc
    this.proc = undefined
    killAll(sshdChildrenServing(clientPid, this.port))
    if (p && p.exitCode === null) p.kill('SIGKILL')
  }

  /** Stops the listener and every connection it serves. */
  async stop(): Promise<void> {
    const p = this.proc
    this.proc = undefined
    if (!p || p.exitCode !== null) return
    const exited = new Promise((r) => p.once('exit', r))
    // every connection is served by the listener's descendants ([priv] monitor and user child)
    for (const pid of descendants(p.pid!)) {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // already gone
      }
    }
    p.kill('SIGTERM')
    await exited
  }

  cleanup(): void {
    try {
      const pid = Number(readFileSync(join(this.dir, 'sshd.pid'), 'utf8'))
      process.kill(pid, 'SIGKILL')
    } catch {
      // not running
    }
    this.proc?.kill('SIGKILL')
    rmSync(this.dir, { recursive: true, force: true })
  }
}

/** The pids of sshd processes that serve TCP connections coming from `clientPid`. */
export function sshdChildrenServing(clientPid: number, port: number): number[] {
  const out = execFileSync('ss', ['-tnpH', 'state', 'established'], { encoding: 'utf8' })
  const clientPorts = new Set<string>()
  const lines = out.split('\n')
  for (const l of lines) {
    if (!l.includes(`pid=${clientPid},`)) continue
    const cols = l.trim().split(/\s+/)
    const local = cols[2]
    const peer = cols[3]
    if (peer?.endsWith(`:${port}`) && local) clientPorts.add(local)
  }
  const pids: number[] = []
  for (const l of lines) {
    const cols = l.trim().split(/\s+/)
    const local = cols[2]
    const peer = cols[3]
    if (local?.endsWith(`:${port}`) && peer && clientPorts.has(peer)) {
      // both the [priv] monitor and the user's child hold the socket: kill either and one remains
      for (const m of l.matchAll(/"sshd",pid=(\d+)/g)) pids.push(Number(m[1]))
    }
  }
  return pids
}

/** Drops `clientPid`'s connection the way a network cut would: kills the sshd processes serving it (once there are some). */
export async function killSshdServing(clientPid: number, port: number): Promise<number[]> {
  const children = await until(() => {
    const c = sshdChildrenServing(clientPid, port)
    return c.length ? c : undefined
  }, 'the sshd child serving the daemon')
  killAll(children)
  return children
}

/** SIGKILLs each process; one already gone is fine (an sshd [priv] monitor's child goes with it). */
export function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e
    }
  }
}

function descendants(pid: number): number[] {
  const out = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
  const children = new Map<number, number[]>()
  for (const line of out.trim().split('\n')) {
    const [c, parent] = line.trim().split(/\s+/).map(Number) as [number, number]
    children.set(parent, [...(children.get(parent) ?? []), c])
  }
  const all: number[] = []
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      all.push(c)
      walk(c)
    }
  }
  walk(pid)
  return all
}
