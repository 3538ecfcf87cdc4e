// A logind "delay" inhibitor on Linux: while Berth holds it, the OS waits (up to logind's
// InhibitDelayMaxSec) before it sleeps, so a pause in progress can finish. Node-only: a
// `systemd-inhibit ... cat` child holds the lock for as long as its stdin stays open, so the lock
// also goes away by itself if Berth dies. Where logind does not run, there is nothing to take.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { within } from '../deadline'

const CANDIDATES = ['/usr/bin/systemd-inhibit', '/bin/systemd-inhibit']

export class SleepInhibitor {
  private child: ChildProcessWithoutNullStreams | undefined
  /** "held", or "none: <why>" */
  state = 'none: not taken'

  constructor(private readonly env: { platform: NodeJS.Platform; logindPresent: () => boolean } = { platform: process.platform, logindPresent: () => existsSync('/run/systemd/system') && existsSync('/run/systemd/seats') }) {}

  get held(): boolean {
    return !!this.child && this.child.exitCode === null
  }

  /** Takes the lock (quietly does nothing where there is no logind); resolves with the state. */
  async take(why = 'pausing Berth sessions before sleep'): Promise<string> {
    if (this.held) return this.state
    if (this.env.platform !== 'linux') return (this.state = `none: ${this.env.platform} has no logind`)
    if (!this.env.logindPresent()) return (this.state = 'none: logind is not running on this machine')
    const bin = CANDIDATES.find((c) => existsSync(c))
    if (!bin) return (this.state = 'none: systemd-inhibit is not installed')
    const child = spawn(bin, ['--what=sleep', '--mode=delay', '--who=Berth', `--why=${why}`, 'cat'], { stdio: ['pipe', 'ignore', 'pipe'] }) as unknown as ChildProcessWithoutNullStreams
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', () => undefined)
    child.stdin.on('error', () => undefined)
    // systemd-inhibit fails at once when logind refuses; still running after a moment means held
    const exited = await within(
      new Promise<boolean>((r) => child.once('exit', () => r(true))),
      150,
      () => false,
    )
    if (exited) return (this.state = `none: systemd-inhibit failed (${stderr.trim().split('\n')[0] || `exit ${child.exitCode}`})`)
    child.unref()
    this.child = child
    child.once('exit', () => {
      if (this.child === child) {
        this.child = undefined
        this.state = 'none: released'
      }
    })
    return (this.state = 'held')
  }

  release(): void {
    const c = this.child
    this.child = undefined
    if (!c) return
    this.state = 'none: released'
    c.stdin.end()
    setTimeout(() => c.exitCode === null && c.kill('SIGTERM'), 1000).unref()
  }
}
