// A connected server: Docker calls go through a stream-local forward of the server's Docker socket
// over the one persistent ssh connection, exposed as a private unix socket in $BERTH_HOME/run
// (Podman Desktop's trick), so dockerode never sees SSH and keeps its HTTP connections alive.
import { chmodSync, rmSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type Dockerode from 'dockerode'
import { BerthError } from '../../../shared/errors'
import { ensurePrivateDir } from '../durable-file'
import { createDockerClient } from './docker-client'
import { shq, type Engine, type EngineFacts, type ShellProcess } from './engine'
import { readFacts } from './facts'
import type { KnownHosts } from './known-hosts'
import { SshConnection } from './ssh-connection'
import { trustedKey } from './host-trust'
import { resolveServerAddress } from './ssh-hosts'

export class SshEngine implements Engine {
  readonly kind = 'ssh' as const
  readonly docker: Dockerode
  readonly connection: SshConnection
  private readonly localSocket: string
  private server: net.Server | undefined
  private remoteSocket: string | undefined
  private remoteDockerHost: string | undefined
  private cachedFacts?: EngineFacts

  constructor(
    readonly name: string,
    url: string,
    identity: string | null,
    knownHosts: KnownHosts,
    runDir: string,
    /** a Host of the user's ~/.ssh/config: resolved again on every connection, so its edits apply */
    alias: string | null = null,
  ) {
    const fixed = resolveServerAddress(url)
    this.connection = new SshConnection({
      server: name,
      endpoint: () => (alias ? resolveServerAddress(alias) : fixed),
      identity,
      trusted: (host, port, presented) => trustedKey(knownHosts, host, port, presented),
    })
    this.connection.on('state', (state: string) => {
      if (state === 'connected') this.remoteSocket = undefined // re-read DOCKER_HOST: the server may have changed
    })
    ensurePrivateDir(runDir)
    this.localSocket = join(runDir, `${name}.docker.sock`)
    this.docker = createDockerClient({
      socketPath: this.localSocket,
      server: name,
      describe: (err) => this.connection.reason ?? (err as Error).message,
      beforeRetry: async () => {
        await this.listen()
        await this.connection.get()
      },
    })
  }

  /** The server's Docker socket: its DOCKER_HOST when that is a unix socket, else the default. */
  private async dockerSocket(): Promise<string> {
    if (this.remoteSocket) return this.remoteSocket
    const ch = await this.connection.exec('printf %s "${DOCKER_HOST:-}"')
    const out = await new Promise<string>((resolve) => {
      let s = ''
      ch.on('data', (d: Buffer) => (s += d.toString()))
      ch.on('close', () => resolve(s.trim()))
      ch.stderr.resume()
    })
    this.remoteDockerHost = out || 'unix:///var/run/docker.sock'
    this.remoteSocket = out.startsWith('unix://') ? out.slice('unix://'.length) : '/var/run/docker.sock'
    return this.remoteSocket
  }

  private async listen(): Promise<void> {
    if (this.server) return
    rmSync(this.localSocket, { force: true })
    // half-open: a client that ends its side (an exec's stdin reaching EOF) still reads the answer
    const server = net.createServer({ allowHalfOpen: true }, (local) => {
      local.on('error', () => local.destroy())
      this.dockerSocket()
        .then((remote) => this.connection.forwardStreamLocal(remote))
        .then((channel) => {
          channel.on('error', () => local.destroy())
          channel.on('close', () => local.destroy())
          local.on('close', () => channel.close())
          local.pipe(channel).pipe(local)
        })
        .catch(() => local.destroy())
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(this.localSocket, () => resolve())
    })
    chmodSync(this.localSocket, 0o600)
    this.server = server
  }

  async ready(): Promise<void> {
    await this.listen()
    await this.connection.get()
    await this.dockerSocket()
    try {
      await this.docker.ping()
    } catch (e) {
      if (e instanceof BerthError) throw e
      throw new BerthError('unreachable', `server ${this.name} answers ssh but not Docker on ${this.remoteSocket}: ${(e as Error).message}`)
    }
  }

  async facts(): Promise<EngineFacts> {
    if (!this.cachedFacts) {
      await this.ready()
      this.cachedFacts = await readFacts(this.docker, this.remoteDockerHost ?? 'unix:///var/run/docker.sock')
    }
    return this.cachedFacts
  }

  async shell(script: string, opts: { env?: Record<string, string> } = {}): Promise<ShellProcess> {
    await this.dockerSocket()
    const exports = Object.entries({ ...opts.env, DOCKER_HOST: this.remoteDockerHost! })
      .map(([k, v]) => `export ${k}=${shq(v)}; `)
      .join('')
    const ch = await this.connection.exec(`sh -c ${shq(exports + script)}`)
    // a channel closes without an exit status when its process is ended by a signal (sshd sends
    // exit-signal) or when the connection under it drops: the two call for different fixes
    let signal: string | null = null
    let closedBy: string | undefined
    const exit = new Promise<number | null>((resolve) => {
      let code: number | null = null
      ch.on('exit', (c: number | null, sig?: string) => {
        code = typeof c === 'number' ? c : null
        if (code === null && sig) signal = sig
      })
      ch.on('close', () => {
        if (code === null && !signal) closedBy = this.connection.connected ? 'the channel closed with no exit status' : (this.connection.reason ?? 'the ssh connection closed')
        resolve(code)
      })
    })
    const ending = () => (signal ? `ended by signal ${signal}` : (closedBy ?? 'ended with no exit status'))
    return { stdin: ch, stdout: ch, stderr: ch.stderr, exit, ending, kill: () => ch.close() }
  }

  async connectTcp(host: string, port: number): Promise<Duplex> {
    return await this.connection.forwardTcp(host, port)
  }

  isConnected(): boolean {
    return this.connection.connected
  }

  async close(): Promise<void> {
    ;(this.docker.modem as unknown as { agent?: { destroy(): void } }).agent?.destroy()
    this.server?.close()
    this.server = undefined
    rmSync(this.localSocket, { force: true })
    this.connection.close()
  }
}
