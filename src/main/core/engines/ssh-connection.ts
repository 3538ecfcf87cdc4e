// ONE persistent ssh2 connection per connected server, shared by Docker calls, shells, terminals
// and transfers. It connects on first use (through the ProxyJump hops of the user's ssh config,
// each an ssh2 connection whose forwarded channel is the next one's `sock`), verifies every host
// key on every connection, and reconnects transparently on the next use after a drop.
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import type { Duplex } from 'node:stream'
import { Client, utils, type AgentAuthMethod, type ClientChannel, type ConnectConfig, type PublicKeyAuthMethod } from 'ssh2'
import { BerthError } from '../../../shared/errors'
import { hostKeyOf, type HostKey } from './known-hosts'
import type { SshEndpoint } from './ssh-hosts'

export interface SshConnectionOptions {
  server: string
  /** where to connect, resolved on every connection (a Host of ~/.ssh/config follows its edits) */
  endpoint: () => SshEndpoint
  /** a private key file that takes the place of the endpoint's own */
  identity: string | null
  /** The key host:port is trusted with (the presented one's type, if it has several); undefined: not confirmed (while probing a new server, always). */
  trusted: (host: string, port: number, presented: HostKey, jump: boolean) => HostKey | undefined
  readyTimeoutMs?: number
}

type Hop = { client: Client; where: string }

export class SshConnection extends EventEmitter {
  private client: Client | undefined
  private hops: Client[] = []
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

  private async connect(): Promise<Client> {
    const endpoint = this.opts.endpoint()
    const hops: Client[] = []
    try {
      let sock: Duplex | undefined
      for (const [i, jump] of endpoint.jumps.entries()) {
        const hop = await this.handshake(jump, { sock, identity: null, jump: true })
        hops.push(hop.client)
        const next = endpoint.jumps[i + 1] ?? endpoint
        sock = await this.forwardThrough(hop, next)
      }
      const last = await this.handshake(endpoint, { sock, identity: this.opts.identity, jump: false })
      this.hops = hops
      this.client = last.client
      this.lastError = undefined
      let failure: string | undefined
      last.client.on('error', (err: Error) => (failure ??= err.message))
      last.client.on('close', () => {
        if (this.client !== last.client) return
        this.client = undefined
        for (const h of this.hops.splice(0)) h.end()
        this.lastError = `the ssh connection to ${last.where} closed${failure ? `: ${failure}` : ''}`
        this.emit('state', 'disconnected')
      })
      this.emit('state', 'connected')
      return last.client
    } catch (e) {
      for (const h of hops) h.end()
      this.lastError = (e as Error).message
      throw e
    }
  }

  /** A channel from a hop to the next host, for that host's connection to run over. */
  private forwardThrough(hop: Hop, next: SshEndpoint): Promise<ClientChannel> {
    const ms = this.opts.readyTimeoutMs ?? 10_000
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new BerthError('unreachable', `server ${this.opts.server} is unreachable: the jump host ${hop.where} did not open a channel to ${next.host}:${next.port} within ${ms / 1000} s`)), ms)
      hop.client.forwardOut('127.0.0.1', 0, next.host, next.port, (err, ch) => {
        clearTimeout(timer)
        if (err) reject(new BerthError('unreachable', `server ${this.opts.server} is unreachable: the jump host ${hop.where} cannot reach ${next.host}:${next.port} (${err.message})`))
        else resolve(ch)
      })
    })
  }

  private handshake(e: SshEndpoint, how: { sock: Duplex | undefined; identity: string | null; jump: boolean }): Promise<Hop> {
    const { server } = this.opts
    const where = `${e.user}@${e.host}:${e.port}`
    const what = how.jump ? `the jump host ${e.host}:${e.port}` : `${e.host}:${e.port}`
    return new Promise<Hop>((resolve, reject) => {
      const c = new Client()
      let settled = false
      let mismatch: BerthError | undefined
      const keyHost = e.hostKeyAlias ?? e.host
      const config: ConnectConfig = {
        host: e.host,
        port: e.port,
        username: e.user,
        readyTimeout: this.opts.readyTimeoutMs ?? 10_000,
        keepaliveInterval: 5_000,
        keepaliveCountMax: 3,
        ...(how.sock ? { sock: how.sock as ConnectConfig['sock'] } : {}),
        hostVerifier: (key: Buffer) => {
          const presented = hostKeyOf(key)
          if (!how.jump) this.presented = presented
          const trusted = this.opts.trusted(keyHost, e.hostKeyAlias ? 22 : e.port, presented, how.jump)
          if (!trusted) {
            mismatch = new BerthError(
              'host_key_unconfirmed',
              how.jump
                ? `the host key of ${what} (${presented.fingerprint}) is not in ~/.ssh/known_hosts: connect to it once with ssh to trust it`
                : `the host key of ${e.host}:${e.port} is not confirmed yet: it is ${presented.fingerprint}`,
              { fingerprint: presented.fingerprint, keyType: presented.keyType },
            )
            return false
          }
          if (trusted.fingerprint !== presented.fingerprint) {
            mismatch = new BerthError(
              'host_key_mismatch',
              `the host key of ${how.jump ? what : `${server} (${e.host}:${e.port})`} changed: expected ${trusted.fingerprint}, got ${presented.fingerprint}; refusing to connect`,
              { expected: trusted.fingerprint, presented: presented.fingerprint },
            )
            return false
          }
          return true
        },
      }
      try {
        config.authHandler = this.authMethods(e, how.identity, what)
      } catch (err) {
        return reject(err)
      }
      c.on('ready', () => {
        settled = true
        resolve({ client: c, where })
      })
      c.on('error', (err: Error & { level?: string; code?: string }) => {
        if (settled) return
        settled = true
        let b: BerthError
        if (mismatch) b = mismatch
        else if (err.level === 'client-authentication') b = new BerthError('unreachable', `server ${server} refused the key: authentication failed for ${where}${how.jump ? ' (a jump host)' : ''}`)
        else if (err.level === 'client-timeout') b = new BerthError('unreachable', `server ${server} is unreachable: no ssh answer from ${where} within ${(config.readyTimeout ?? 0) / 1000} s`)
        else b = new BerthError('unreachable', `server ${server} is unreachable: ${err.code ? `${err.code} ${where}` : err.message}`)
        c.end()
        reject(b)
      })
      c.on('close', () => {
        if (!settled) {
          settled = true
          reject(mismatch ?? new BerthError('unreachable', `server ${server} is unreachable: the ssh connection to ${where} closed`))
        }
      })
      c.connect(config)
    })
  }

  /** The keys to offer, in ssh's order: the identity given, else the config's files, then the agent. */
  private authMethods(e: SshEndpoint, identity: string | null, what: string): Array<PublicKeyAuthMethod | AgentAuthMethod> {
    const methods: Array<PublicKeyAuthMethod | AgentAuthMethod> = []
    const files = identity ? [identity] : e.identities
    for (const file of files) {
      let text: Buffer
      try {
        text = readFileSync(file)
      } catch (err) {
        if (identity) throw new BerthError('usage', `cannot read the identity file ${file}: ${(err as Error).message}`)
        continue
      }
      const key = utils.parseKey(text)
      // an encrypted key is the agent's to offer (Berth asks for no passphrase)
      if (key instanceof Error) {
        if (identity) throw new BerthError('usage', `cannot use the identity file ${file}: ${key.message}`)
        continue
      }
      methods.push({ type: 'publickey', username: e.user, key: text })
    }
    if (process.env.SSH_AUTH_SOCK) methods.push({ type: 'agent', username: e.user, agent: process.env.SSH_AUTH_SOCK })
    if (methods.length === 0) throw new BerthError('usage', `no identity for ${this.opts.server}${what === `${e.host}:${e.port}` ? '' : ` (${what})`}: pass --identity FILE, name an IdentityFile in ~/.ssh/config, or run an ssh agent`)
    return methods
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
    for (const h of this.hops.splice(0)) h.end()
  }

  private wrap(err: Error): BerthError {
    return new BerthError('unreachable', `server ${this.opts.server}: ${err.message}`)
  }
}
