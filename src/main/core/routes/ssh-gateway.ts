// The ssh gateway: ssh2's Server on a loopback port. The user name is a session's route id;
// public keys only; modern algorithms only; each connection reaches its own route's session and
// nothing else. Every channel resolves the route again (the session may have moved since the
// connection began). A peer that keeps failing to authenticate is held off (gateway-limits.ts).
import net, { type Socket } from 'node:net'
import { Server, type AuthContext, type Connection, type ServerChannel, type Session as SshSession } from 'ssh2'
import type { Settings } from '../../../shared/settings'
import { BerthError } from '../../../shared/errors'
import type { ActivityTap } from './activity'
import { signatureValid, type AuthorizedKeys } from './authorized-keys'
import { guardInbox, pipeProcess, type ChannelBounds } from './channel-pipe'
import type { ContainerPorts } from './container-ports'
import { signalInContainer, startContainerProcess, type ProcessSpec } from './container-process'
import { openForward } from './gateway-forward'
import { acceptableEnv, dim, ptyOf, sshEnv } from './channel-requests'
import { listenOnFreePort } from './free-port'
import { DEFAULT_LIMITS, GATEWAY_ALGORITHMS, PeerGuard, peerOf, type GatewayLimits } from './gateway-limits'
import type { GatewayHostKey } from './host-key'
import type { Reached, RouteTable } from './route-table'
import type { AgentForwarding } from './agent-forwarding'

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

interface Conn {
  socket: Socket
  client: Connection | undefined
  remote: string
  /** the peer address the PeerGuard counts it under */
  peer: string
  authenticated: boolean
  /** whether the client asked to authenticate at all (a scanner that only reads the banner did not fail) */
  triedAuth: boolean
  authAttempts: number
  route: string | undefined
  sessionId: string | undefined
  /** why this connection may not reach its session (said on any channel it opens) */
  refusal: string | undefined
  channels: number
  lastActive: number
  authTimer: NodeJS.Timeout
}

export class SshGateway {
  private readonly limits: GatewayLimits
  private readonly guard: PeerGuard
  private readonly ssh: Server
  private readonly listener: net.Server
  private readonly conns = new Set<Conn>()
  private readonly bySocket = new WeakMap<Socket, Conn>()
  private readonly sweeper: NodeJS.Timeout
  /** the live shell/exec/sftp channels of each session, to tell them what happens to it */
  private readonly live = new Map<string, Set<(line: string) => void>>()
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
    const tells = this.live.get(sessionId)
    for (const tell of tells ?? []) tell(line)
    return tells?.size ?? 0
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
      this.serveSession(conn, session)
    })
    client.on('tcpip', (accept, reject, info) => {
      openForward({ ...this.deps, conn, limits: this.limits, bounds: this.bounds() }, accept, reject, info).catch((e: Error) => {
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

  private serveSession(conn: Conn, session: SshSession): void {
    const env: Record<string, string> = {}
    let pty: { term: string; cols: number; rows: number } | undefined
    let agentRequested = false
    let running: { reached: Reached; resize(cols: number, rows: number): void; pid(): number | undefined } | undefined
    session.on('error', () => undefined)
    session.on('env', (accept, reject, info) => {
      const ok = Object.keys(env).length < this.limits.maxEnv && acceptableEnv(info.key, info.val)
      if (ok) env[info.key] = info.val
      ;(ok ? accept : reject)?.()
    })
    session.on('pty', (accept, _reject, info) => {
      pty = ptyOf(info)
      accept?.()
    })
    session.on('window-change', (accept, _reject, info) => {
      if (pty) {
        pty.cols = dim(info.cols, pty.cols)
        pty.rows = dim(info.rows, pty.rows)
        running?.resize(pty.cols, pty.rows)
      }
      accept?.()
    })
    session.on('signal', (accept, _reject, info) => {
      const pid = running?.pid()
      const name = String(info.name ?? '').replace(/^SIG/, '')
      if (running && pid) void signalInContainer(running.reached.engine.docker, running.reached.containerId, pid, name).catch(() => undefined)
      accept?.()
    })
    session.on('auth-agent', (accept, reject) => {
      if (!this.deps.settings().allowAgentForwarding) return reject?.()
      agentRequested = true
      accept?.()
    })
    // accept() gives nothing for a second shell/exec/subsystem on the same channel: ignore those
    const start = (channel: ServerChannel | undefined, spec: Omit<ProcessSpec, 'tty' | 'env'>) => {
      if (!channel) return
      this.run(conn, channel, spec, env, pty, agentRequested, (r) => (running = r)).catch((e: Error) => {
        this.deps.log(`ssh gateway: ${conn.route ?? '?'}: ${e.message}`)
        try {
          channel.close()
        } catch {
          // already closed
        }
      })
    }
    session.on('shell', (accept) => start(accept(), { kind: 'shell' }))
    session.on('exec', (accept, _reject, info) => start(accept(), { kind: 'exec', command: info.command }))
    session.on('subsystem', (accept, reject, info) => {
      if (info.name !== 'sftp') return reject?.()
      start(accept(), { kind: 'sftp' })
    })
  }

  private bounds(): ChannelBounds {
    return { socketHighWater: this.limits.socketHighWater, channelInboxLimit: this.limits.channelInboxLimit }
  }

  private async run(
    conn: Conn,
    channel: ServerChannel,
    spec: Omit<ProcessSpec, 'tty' | 'env'>,
    clientEnv: Record<string, string>,
    pty: { term: string; cols: number; rows: number } | undefined,
    agentRequested: boolean,
    onRunning: (r: { reached: Reached; resize(cols: number, rows: number): void; pid(): number | undefined }) => void,
  ): Promise<void> {
    let closed = false
    channel.on('error', () => undefined)
    channel.stderr.on('error', () => undefined)
    channel.once('close', () => (closed = true))
    guardInbox(channel, this.limits.channelInboxLimit, () => {
      this.deps.log(`ssh gateway: cut a channel to ${conn.route ?? '?'}: its client sent past its window`)
      conn.socket.destroy()
    })
    const eol = pty ? '\r\n' : '\n'
    const tell = (line: string) => {
      if (!closed) channel.stderr.write(`berth: ${line}${eol}`)
    }
    const refuse = (message: string) => {
      tell(message)
      if (!closed) {
        channel.exit(255)
        channel.end()
      }
    }
    if (conn.refusal || !conn.sessionId) return refuse(conn.refusal ?? 'session not found')
    const sessionId = conn.sessionId
    let reached: Reached
    try {
      reached = await this.deps.routes.reach(sessionId, tell, () => closed)
    } catch (e) {
      return refuse(e instanceof BerthError ? e.message : `cannot reach the session: ${(e as Error).message}`)
    }
    if (closed) return
    const env: Record<string, string> = { ...clientEnv, ...sshEnv(conn.remote, this.boundPort) }
    if (pty) env.TERM = pty.term
    let agent: { socketPath: string; stop(): void } | undefined
    if (agentRequested && conn.client) {
      try {
        agent = await this.deps.agent.start(conn.client, reached)
        env.SSH_AUTH_SOCK = agent.socketPath
      } catch (e) {
        tell(`agent forwarding is unavailable in this session: ${(e as Error).message}`)
      }
    }
    let proc
    try {
      proc = await startContainerProcess(reached.engine.docker, reached.containerId, { ...spec, tty: !!pty, env })
    } catch (e) {
      agent?.stop()
      return refuse(`cannot start ${spec.kind === 'exec' ? 'the command' : `the ${spec.kind}`} in session ${reached.row.route}: ${(e as Error).message.split('\n')[0]}`)
    }
    if (closed) {
      proc.stream.destroy()
      agent?.stop()
      return
    }
    if (pty) proc.resize(pty.cols, pty.rows)
    const touch = () => {
      conn.lastActive = Date.now()
      this.deps.activity.touch(sessionId)
    }
    const piped = pipeProcess(proc, channel, conn.socket, this.bounds(), touch)
    onRunning({ reached, resize: (c, r) => proc.resize(c, r), pid: piped.pid })
    const tells = this.live.get(sessionId) ?? new Set<(line: string) => void>()
    this.live.set(sessionId, tells)
    tells.add(tell)
    const foreground = spec.kind === 'exec'
    if (foreground) this.deps.activity.foreground(sessionId, 1)
    let exited = false
    channel.once('close', () => {
      if (exited) return
      piped.abort()
      // as sshd closing a pty: the shell and its jobs get a hang-up instead of lingering
      const pid = piped.pid()
      if (pty && pid) void signalInContainer(reached.engine.docker, reached.containerId, pid, 'HUP').catch(() => undefined)
    })
    try {
      const code = await piped.done
      exited = true
      if (!closed) {
        channel.exit(code ?? 255)
        channel.end()
      }
    } finally {
      exited = true
      tells.delete(tell)
      if (!tells.size) this.live.delete(sessionId)
      agent?.stop()
      if (foreground) this.deps.activity.foreground(sessionId, -1)
    }
  }
}
