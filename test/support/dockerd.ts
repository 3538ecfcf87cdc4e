// A private Docker engine owned by one test: it can be killed with -9 and started again without
// touching the shared engines. Its own data root, exec root, socket, pid file, and its own bridge:
// `--bip` alone would re-address the docker0 bridge that the shared engines use, so the test makes
// a bridge of its own (with its own address) and hands it to the engine with --bridge.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Dockerode from 'dockerode'
import { sleep } from './berth'
import { processAlive } from '../../src/main/core/process-exit'

export class PrivateDockerd {
  readonly dir = mkdtempSync('/tmp/bdd-')
  readonly socket = join(this.dir, 'd.sock')
  private proc: ChildProcess | undefined

  readonly bridge: string

  /**
   * `bip`: a bridge address no other engine on this machine uses, e.g. 172.31.201.1/24; `env`: what
   * the engine (and the containerd, runc and CRIU under it) runs with, e.g. a PATH that finds a
   * test's own criu first
   */
  constructor(
    private readonly bip: string,
    private readonly env: Record<string, string> = {},
    /** a data root on a filesystem of this size (e.g. '160m'), to fill */
    private readonly dataRootSize?: string,
  ) {
    this.bridge = `bdd${bip.split('.')[2]}`
  }

  /** the engine's data root (its --data-root) */
  get dataRoot(): string {
    return join(this.dir, 'root')
  }

  get dockerHost(): string {
    return `unix://${this.socket}`
  }

  docker(): Dockerode {
    return new Dockerode({ socketPath: this.socket })
  }

  private args(): string[] {
    return [
      '--experimental',
      '--data-root', join(this.dir, 'root'),
      '--exec-root', join(this.dir, 'x'),
      '-H', this.dockerHost,
      '--pidfile', join(this.dir, 'd.pid'),
      '--bridge', this.bridge,
      '--iptables=false',
    ]
  }

  private ensureBridge(): void {
    const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { stdio: 'ignore' })
    try {
      sh(`ip link show ${this.bridge}`)
    } catch {
      sh(`ip link add name ${this.bridge} type bridge && ip addr add ${this.bip} dev ${this.bridge} && ip link set ${this.bridge} up`)
    }
  }

  async start(): Promise<void> {
    this.ensureBridge()
    const root = join(this.dir, 'root')
    if (this.dataRootSize && !readFileSync('/proc/mounts', 'utf8').includes(` ${root} `)) {
      mkdirSync(root, { recursive: true })
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${this.dataRootSize}`, 'tmpfs', root])
    }
    const log = openSync(join(this.dir, 'dockerd.log'), 'a')
    this.proc = spawn('dockerd', this.args(), { stdio: ['ignore', log, log], detached: true, env: { ...process.env, ...this.env } })
    this.proc.unref()
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      try {
        await this.docker().ping()
        return
      } catch {
        await sleep(200)
      }
    }
    throw new Error(`the private dockerd did not start; see ${join(this.dir, 'dockerd.log')}`)
  }

  pid(): number | undefined {
    const f = join(this.dir, 'd.pid')
    return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) : undefined
  }

  private containerdPid(): number | undefined {
    const f = join(this.dir, 'x', 'containerd', 'containerd.pid')
    return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) || undefined : undefined
  }

  /** kill -9 of the engine (its containerd goes with it; containers are stopped at the next start). */
  async kill9(): Promise<void> {
    const pid = this.pid()
    if (!pid) throw new Error('the private dockerd is not running')
    const containerd = this.containerdPid()
    process.kill(pid, 'SIGKILL')
    while (processAlive(pid)) await sleep(50)
    // its containerd follows it down; a start before it is gone would wait on its dead socket
    const deadline = Date.now() + 20_000
    while (containerd && processAlive(containerd) && Date.now() < deadline) await sleep(50)
    if (containerd && processAlive(containerd)) process.kill(containerd, 'SIGKILL')
    rmSync(join(this.dir, 'd.pid'), { force: true })
  }

  /** Copies an image from the shared local engine (a private engine starts empty). */
  loadFrom(sharedSocket: string, image: string): void {
    execFileSync('sh', ['-c', `docker -H unix://${sharedSocket} save ${image} | docker -H ${this.dockerHost} load -q`], { stdio: 'ignore' })
  }

  async stop(): Promise<void> {
    const pid = this.pid()
    if (pid && processAlive(pid)) {
      const d = this.docker()
      for (const c of await d.listContainers({ all: true }).catch(() => [])) await d.getContainer(c.Id).remove({ force: true, v: true }).catch(() => undefined)
      process.kill(pid, 'SIGTERM')
      const deadline = Date.now() + 30_000
      while (processAlive(pid) && Date.now() < deadline) await sleep(100)
      if (processAlive(pid)) process.kill(pid, 'SIGKILL')
    }
    try {
      execFileSync('sh', ['-c', `grep -o " ${this.dir}[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l`], { stdio: 'ignore' })
    } catch {
      // nothing mounted
    }
    rmSync(this.dir, { recursive: true, force: true })
    try {
      execFileSync('ip', ['link', 'del', this.bridge], { stdio: 'ignore' })
    } catch {
      // already gone
    }
  }
}
