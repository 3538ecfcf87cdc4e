// A developer with their own HOME (so their ~/.ssh/*.pub is what the gateway trusts), driving the
// real OpenSSH client (ssh, scp, sftp) against a Berth's gateway.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { childOutput, type BerthHome, type RunResult } from './berth'

export interface SshResult extends RunResult {
  out: Buffer
}

export class SshUser {
  readonly home: string
  readonly key: string
  readonly knownHosts: string

  constructor(label = 'user') {
    this.home = mkdtempSync(join(tmpdir(), `berth-${label}-home-`))
    mkdirSync(join(this.home, '.ssh'), { mode: 0o700 })
    this.key = join(this.home, '.ssh', 'id_ed25519')
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `${label}@test`, '-f', this.key])
    this.knownHosts = join(this.home, 'known_hosts.test')
  }

  get publicKey(): string {
    return readFileSync(`${this.key}.pub`, 'utf8').trim()
  }

  env(): Record<string, string> {
    return { HOME: this.home }
  }

  /** Starts this home's daemon as this user (HOME decides whose ~/.ssh/*.pub the gateway trusts). */
  async startDaemon(berth: BerthHome): Promise<{ port: number; previewPort: number; fingerprint: string }> {
    const r = await berth.run(['daemon'], { env: this.env() })
    if (r.code !== 0 && !r.stderr.includes('already drives')) {
      let log = ''
      try {
        log = readFileSync(join(berth.home, 'logs', 'daemon.log'), 'utf8').slice(-4000)
      } catch {
        // no log yet
      }
      throw new Error(`berth daemon failed: ${r.stderr}\ndaemon.log:\n${log}`)
    }
    const info = await berth.call('routes.info', {})
    if (!info.gateway.listening) throw new Error('the gateway is not listening')
    return { port: info.gateway.port, previewPort: info.preview.port, fingerprint: info.gateway.hostKeyFingerprint }
  }

  /** Options every OpenSSH tool here gets: no user config, this user's key only, a private known_hosts. */
  options(extra: string[] = []): string[] {
    return [
      '-F', '/dev/null',
      '-o', `UserKnownHostsFile=${this.knownHosts}`,
      '-o', 'StrictHostKeyChecking=accept-new',
      '-o', 'BatchMode=yes',
      '-o', 'IdentitiesOnly=yes',
      '-o', 'LogLevel=ERROR',
      '-o', 'ConnectTimeout=20',
      '-i', this.key,
      ...extra,
    ]
  }

  run(tool: 'ssh' | 'scp' | 'sftp', args: string[], opts: { input?: string | Buffer; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<SshResult> {
    const child = this.spawn(tool, args, opts.env)
    return childOutput(child, `${tool} ${args.join(' ')}`, opts.input, opts.timeoutMs ?? 60_000).then((r) => ({ code: r.code, stdout: r.out.toString(), stderr: r.err.toString(), out: r.out }))
  }

  spawn(tool: 'ssh' | 'scp' | 'sftp', args: string[], env: Record<string, string> = {}): ChildProcess {
    return spawn(tool, args, { env: { ...process.env, ...this.env(), ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  }

  /** `ssh -p PORT ROUTE@127.0.0.1 [extra...] -- COMMAND` */
  ssh(
    port: number,
    route: string,
    command: string | undefined,
    opts: { input?: string | Buffer; timeoutMs?: number; extra?: string[]; env?: Record<string, string> } = {},
  ): Promise<SshResult> {
    const args = [...this.options(opts.extra), '-p', String(port), `${route}@127.0.0.1`]
    if (command !== undefined) args.push(command)
    return this.run('ssh', args, opts)
  }

  cleanup(): void {
    rmSync(this.home, { recursive: true, force: true })
  }
}

/** A private tmux server (its own socket), so a test drives a terminal without touching anyone else's. */
export class Tmux {
  readonly socket: string

  constructor(label: string) {
    this.socket = `berth-${label}-${process.pid}-${Date.now()}`
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' })
  }

  start(name: string, command: string[], cols = 100, rows = 30, env: Record<string, string> = {}): void {
    execFileSync('tmux', ['-L', this.socket, 'new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), ...command], {
      env: { ...process.env, ...env },
    })
  }

  send(name: string, keys: string): void {
    this.tmux(['send-keys', '-t', name, '-l', keys])
    this.tmux(['send-keys', '-t', name, 'Enter'])
  }

  resize(name: string, cols: number, rows: number): void {
    this.tmux(['resize-window', '-t', name, '-x', String(cols), '-y', String(rows)])
  }

  capture(name: string): string {
    return this.tmux(['capture-pane', '-p', '-J', '-S', '-200', '-t', name])
  }

  kill(): void {
    try {
      this.tmux(['kill-server'])
    } catch {
      // already gone
    }
  }
}

/** Resident memory of a process, in bytes (VmRSS). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) * 1024 : 0
}
