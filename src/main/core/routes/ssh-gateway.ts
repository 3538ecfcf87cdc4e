// The ssh gateway: ssh2's Server on a loopback port. The user name is a session's route id;
// public keys only; modern algorithms only; each connection reaches its own route's session and
// nothing else. Every channel resolves the route again (the session may have moved since the
// connection began). A peer that keeps failing to authenticate is held off (gateway-limits.ts).
import net, { type Socket } from 'node:net'
import { Server, type AuthContext, type Connection } from 'ssh2'
import type { Settings } from '../../../shared/settings'
import type { ActivityTap } from './activity'
import { signatureValid, type AuthorizedKeys } from './authorized-keys'
import type { ChannelBounds } from './channel-pipe'
import type { ContainerPorts } from './container-ports'
import { ForwardChannel } from './forward-channel'
import { LiveChannels, type GatewayConn } from './gateway-conn'
import { listenOnFreePort } from './free-port'
import { DEFAULT_LIMITS, GATEWAY_ALGORITHMS, PeerGuard, peerOf, type GatewayLimits } from './gateway-limits'
import type { GatewayHostKey } from './host-key'
import type { RouteTable } from './route-table'
import type { AgentForwarding } from './agent-forwarding'
import { SessionChannel, type SessionChannelContext } from './session-channel'

export interface GatewayDeps {
  hostKey: GatewayHostKey
  keys: AuthorizedKeys
  routes: RouteTable
  ports: ContainerPorts
  activity: ActivityTap
  agent: AgentForwarding
  settings: () => Settings
  log: (message: string) => void
  limits?: Partial<GatewayLimits>
}

type Conn = GatewayConn

export class SshGateway {
  private readonly limits: GatewayLimits
  private readonly guard: PeerGuard
  private readonly ssh: Server
  private readonly listener: net.Server
  private readonly conns = new Set<Conn>()
  private readonly bySocket = new WeakMap<Socket, Conn>()
  private readonly sweeper: NodeJS.Timeout
  private readonly live = new LiveChannels()
  private boundPort = 0

  constructor(private readonly deps: GatewayDeps) {
    this.limits = { ...DEFAULT_LIMITS, ...deps.limits }
    this.guard = new PeerGuard(this.limits, deps.log)
    this.ssh = new Server({ hostKeys: [deps.hostKey.privateKey], ident: 'Berth', algorithms: GATEWAY_ALGORITHMS })
    this.ssh.on('connection', (client: Connection) => this.onClient(client))
    this.ssh.on('error', (e: Error) => deps.log(`ssh gateway: ${e.message}`))
    this.listener = net.createServer((socket) => this.onSocket(socket))
    this.sweeper = setInterval(() => this.sweep(), 2000)
    this.sweeper.unref()
  }

  get port(): number {
    return this.boundPort
  }

  get listening(): boolean {
    return this.listener.listening
  }

  get connections(): number {
    return this.conns.size
  }

  /** Says a line on the stderr of every live channel into this session (it is pausing, moving...). */
  notify(sessionId: string, line: string): number {
    return this.live.notify(sessionId, line)
  }

  /** Listens on `preferred`, or the next free port; returns the port. */
  async listen(preferred: number): Promise<number> {
    this.boundPort = await listenOnFreePort(this.listener, preferred)
    return this.boundPort
  }

  /** Stops listening; connections already open go on (a port change must not cut a session). */
  async stopListening(): Promise<void> {
    if (!this.listener.listening) return
    await new Promise<void>((r) => this.listener.close(() => r()))
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper)
    const closing = this.stopListening()
    for (const c of this.conns) c.socket.destroy()
    await closing
  }

  private onSocket(socket: Socket): void {
    socket.on('error', () => undefined)
    const peer = peerOf(socket.remoteAddress)
    if (this.conns.size >= this.limits.maxConnections || !this.guard.admit(peer)) {
      socket.destroy()
      return
    }
    socket.setNoDelay(true)
    const conn: Conn = {
      socket,
      client: undefined,
      remote: `${socket.remoteAddress ?? '?'} ${socket.remotePort ?? 0}`,
      peer,
      authenticated: false,
      triedAuth: false,
      authAttempts: 0,
      route: undefined,
      sessionId: undefined,
      refusal: undefined,
      channels: 0,
      lastActive: Date.now(),
      authTimer: setTimeout(() => {
        if (!conn.authenticated) socket.destroy()
      }, this.limits.authTimeoutMs),
    }
    this.conns.add(conn)
    this.bySocket.set(socket, conn)
    socket.once('close', () => {
      clearTimeout(conn.authTimer)
      this.conns.delete(conn)
      if (!conn.authenticated) this.guard.settle(peer, conn.triedAuth)
    })
    this.ssh.injectSocket(socket)
  }

  /** Drops connections that hold too much unsent output, and idle ones. */
  private sweep(): void {
    const now = Date.now()
    for (const c of this.conns) {
      if (c.socket.writableLength > this.limits.socketHardLimit) {
        this.deps.log(`ssh gateway: cut a connection to ${c.route ?? '?'} that stopped reading (${c.socket.writableLength} bytes queued)`)
        c.socket.destroy()
      } else if (c.authenticated && c.channels === 0 && now - c.lastActive > this.limits.idleTimeoutMs) {
        c.client?.end()
      }
    }
  }

  private onClient(client: Connection): void {
    const socket = (client as unknown as { _sock?: Socket })._sock
    const conn = socket && this.bySocket.get(socket)
    if (!conn) {
      client.end()
      return
    }
    conn.client = client
    client.on('error', () => undefined)
    client.on('authentication', (ctx) => {
      try {
        this.authenticate(conn, ctx)
      } catch {
        ctx.reject(['publickey'])
      }
    })
    client.on('ready', () => {
      try {
        this.onReady(conn)
      } catch (e) {
        this.deps.log(`ssh gateway: ${(e as Error).message}`)
        client.end()
      }
    })
    client.on('session', (accept, reject) => {
      if (conn.channels >= this.limits.maxChannelsPerConnection) return reject()
      const session = accept()
      if (!session) return
      conn.channels++
      conn.lastActive = Date.now()
      session.once('close', () => {
        conn.channels--
        conn.lastActive = Date.now()
      })
      new SessionChannel(this.channelContext(), conn, session)
    })
    client.on('tcpip', (accept, reject, info) => {
      new ForwardChannel({ ...this.deps, conn, limits: this.limits, bounds: this.bounds() }, info).open(accept, reject).catch((e: Error) => {
        this.deps.log(`ssh gateway: a forward from ${conn.route ?? '?'} failed: ${e.message}`)
        reject()
      })
    })
  }

  private authenticate(conn: Conn, ctx: AuthContext): void {
    conn.triedAuth = true
    if (ctx.method !== 'none') conn.authAttempts++
    if (conn.authAttempts > this.limits.maxAuthAttempts) {
      ctx.reject()
      conn.client?.end()
      return
    }
    // passwords, keyboard-interactive and host-based are refused: the gateway knows keys only
    if (ctx.method !== 'publickey') return ctx.reject(['publickey'])
    // an unknown route and an unknown key get the same answer: nothing to learn from it
    const row = this.deps.routes.lookup(ctx.username)
    const allowed = row ? this.deps.keys.find(ctx.key.data) : undefined
    if (!row || !allowed) return ctx.reject(['publickey'])
    if (!ctx.signature) return ctx.accept()
    if (!ctx.blob || !signatureValid(allowed.key, ctx.blob, ctx.signature, ctx.hashAlgo)) return ctx.reject(['publickey'])
    conn.route = row.route
    conn.sessionId = row.id
    ctx.accept()
  }

  private onReady(conn: Conn): void {
    conn.authenticated = true
    this.guard.settle(conn.peer, false)
    clearTimeout(conn.authTimer)
    const row = conn.sessionId ? this.deps.routes.get(conn.sessionId) : undefined
    const sameRoute = [...this.conns].filter((c) => c.authenticated && !c.refusal && c.sessionId === conn.sessionId).length
    if (!row) conn.refusal = 'session not found'
    else if (row.state === 'finished' || row.state === 'finishing') conn.refusal = `session finished: ${row.route} can no longer be reached`
    else if (sameRoute > this.limits.maxConnectionsPerRoute) {
      conn.refusal = `too many ssh connections to ${row.route} (at most ${this.limits.maxConnectionsPerRoute} at once); close some and try again`
      this.deps.log(`ssh gateway: refused a connection to ${row.route}: ${sameRoute - 1} already open`)
    }
    // a refused connection lives just long enough to say why on the channel its client opens
    if (conn.refusal) setTimeout(() => conn.client?.end(), 5000).unref()
  }

  private channelContext(): SessionChannelContext {
    const { routes, activity, agent, settings, log } = this.deps
    return {
      routes,
      activity,
      agent,
      settings,
      log,
      live: this.live,
      maxEnv: this.limits.maxEnv,
      channelInboxLimit: this.limits.channelInboxLimit,
      bounds: this.bounds(),
      gatewayPort: () => this.boundPort,
    }
  }

  private bounds(): ChannelBounds {
    return { socketHighWater: this.limits.socketHighWater, channelInboxLimit: this.limits.channelInboxLimit }
  }
}
