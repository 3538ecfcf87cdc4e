// ONE persistent ssh2 connection per connected server, shared by Docker calls, shells, terminals
// and transfers. It connects on first use, verifies the host key against Berth's known-hosts store
// on every connection, and reconnects transparently on the next use after a drop.
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2'
import { BerthError } from '../../../shared/errors'
import { hostKeyOf, type HostKey } from './known-hosts'
import type { SshTarget } from './ssh-url'

export interface SshConnectionOptions {
  server: string
  target: SshTarget
  identity: string | null
  /** The key we trust; undefined only while probing a new server. */
  trusted: () => HostKey | undefined
  readyTimeoutMs?: number
}

export class SshConnection extends EventEmitter {
  private client: Client | undefined
  private connecting: Promise<Client> | undefined
  private lastError: string | undefined
  /** the key the server presented on the latest handshake */
  presented: HostKey | undefined

  constructor(private readonly opts: SshConnectionOptions) {
    super()
  }

  get connected(): boolean {
    return !!this.client
  }

  /** Why the last attempt failed, in words a person can act on. */
  get reason(): string | undefined {
    return this.lastError
  }

  async get(): Promise<Client> {
    if (this.client) return this.client
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined))
    return await this.connecting
  }

  private connect(): Promise<Client> {
    const { target, server } = this.opts
    const where = `${target.user}@${target.host}:${target.port}`
    return new Promise<Client>((resolve, reject) => {
      const c = new Client()
      let settled = false
      let mismatch: BerthError | undefined
      const config: ConnectConfig = {
        host: target.host,
        port: target.port,
        username: target.user,
        readyTimeout: this.opts.readyTimeoutMs ?? 10_000,
        keepaliveInterval: 5_000,
        keepaliveCountMax: 3,
        hostVerifier: (key: Buffer) => {
          const presented = hostKeyOf(key)
          this.presented = presented
          const trusted = this.opts.trusted()
          if (!trusted) {
            mismatch = new BerthError(
              'host_key_unconfirmed',
              `the host key of ${target.host}:${target.port} is not confirmed yet: it is ${presented.fingerprint}`,
              { fingerprint: presented.fingerprint, keyType: presented.keyType },
            )
            return false
          }
          if (trusted.fingerprint !== presented.fingerprint) {
            mismatch = new BerthError(
              'host_key_mismatch',
              `the host key of ${server} (${target.host}:${target.port}) changed: expected ${trusted.fingerprint}, got ${presented.fingerprint}; refusing to connect`,
              { expected: trusted.fingerprint, presented: presented.fingerprint },
            )
            return false
          }
          return true
        },
      }
      try {
        if (this.opts.identity) config.privateKey = readFileSync(this.opts.identity)
        else if (process.env.SSH_AUTH_SOCK) config.agent = process.env.SSH_AUTH_SOCK
        else throw new BerthError('usage', `no identity for ${server}: pass --identity FILE or run an ssh agent`)
      } catch (e) {
        if (e instanceof BerthError) return reject(e)
        return reject(new BerthError('usage', `cannot read the identity file ${this.opts.identity}: ${(e as Error).message}`))
      }
      c.on('ready', () => {
        settled = true
        this.client = c
        this.lastError = undefined
        this.emit('state', 'connected')
        resolve(c)
      })
      c.on('error', (err: Error & { level?: string; code?: string }) => {
        if (settled) return
        settled = true
        let e: BerthError
        if (mismatch) e = mismatch
        else if (err.level === 'client-authentication')
          e = new BerthError('unreachable', `server ${server} refused the key: authentication failed for ${where}`)
        else if (err.level === 'client-timeout')
          e = new BerthError('unreachable', `server ${server} is unreachable: no ssh answer from ${where} within ${(config.readyTimeout ?? 0) / 1000} s`)
        else e = new BerthError('unreachable', `server ${server} is unreachable: ${err.code ? `${err.code} ${where}` : err.message}`)
        this.lastError = e.message
        c.end()
        reject(e)
      })
      c.on('close', () => {
        if (this.client === c) {
          this.client = undefined
          this.lastError = `the ssh connection to ${where} closed`
          this.emit('state', 'disconnected')
        }
        if (!settled) {
          settled = true
          reject(mismatch ?? new BerthError('unreachable', `server ${server} is unreachable: the ssh connection to ${where} closed`))
        }
      })
      c.connect(config)
    })
  }

  async exec(command: string, opts: { env?: Record<string, string>; pty?: boolean } = {}): Promise<ClientChannel> {
    const c = await this.get()
    return await new Promise((resolve, reject) => {
      c.exec(command, { env: opts.env, pty: opts.pty }, (err, ch) => (err ? reject(this.wrap(err)) : resolve(ch)))
    })
  }

  async forwardStreamLocal(socketPath: string): Promise<ClientChannel> {
    const c = await this.get()
    return await new Promise((resolve, reject) => {
      c.openssh_forwardOutStreamLocal(socketPath, (err, ch) => (err ? reject(this.wrap(err)) : resolve(ch)))
    })
  }

  async forwardTcp(host: string, port: number): Promise<ClientChannel> {
    const c = await this.get()
    return await new Promise((resolve, reject) => {
      c.forwardOut('127.0.0.1', 0, host, port, (err, ch) => (err ? reject(this.wrap(err)) : resolve(ch)))
    })
  }

  /** Drops the connection; the next use reconnects. */
  drop(): void {
    this.client?.end()
  }

  close(): void {
    const c = this.client
    this.client = undefined
    c?.end()
  }

  private wrap(err: Error): BerthError {
    return new BerthError('unreachable', `server ${this.opts.server}: ${err.message}`)
  }
}
