// Shell, exec and sftp channels: each runs one process in the connection's session (resolved again
// for every channel: the session may have moved since the connection began) and pipes it to the
// channel. What differs by kind is what runs and whether it counts as foreground work.
import type { ServerChannel } from 'ssh2'
import { BerthError } from '../../../shared/errors'
import type { ActivityTap } from './activity'
import type { AgentForwarding } from './agent-forwarding'
import { guardInbox, pipeProcess, type ChannelBounds } from './channel-pipe'
import { remoteOf } from '../sessions/session-shape'
import { sshEnv } from './channel-requests'
import { signalInContainer, startContainerProcess, type ProcessSpec } from './container-process'
import type { GatewayConn, LiveChannels } from './gateway-conn'
import type { Reached, RouteTable } from './route-table'

export interface Pty {
  term: string
  cols: number
  rows: number
}

/** What the session channel gathered before its shell, exec or subsystem request. */
export interface ChannelRequests {
  env: Record<string, string>
  pty: Pty | undefined
  agentRequested: boolean
}

export interface RunningProcess {
  reached: Reached
  resize(cols: number, rows: number): void
  pid(): number | undefined
}

export interface ProcessChannelContext {
  routes: RouteTable
  activity: ActivityTap
  agent: AgentForwarding
  live: LiveChannels
  channelInboxLimit: number
  bounds: ChannelBounds
  gatewayPort: () => number
  log: (message: string) => void
}

export abstract class ProcessChannel {
  private closed = false

  constructor(
    protected readonly ctx: ProcessChannelContext,
    protected readonly conn: GatewayConn,
    protected readonly channel: ServerChannel,
    protected readonly requests: ChannelRequests,
  ) {}

  /** what runs in the container for this kind of channel */
  protected abstract spec(): Omit<ProcessSpec, 'tty' | 'env'>

  /** an exec is work the user waits on (the idle watcher does not pause under it) */
  protected readonly foreground: boolean = false

  /** what a refusal to start calls the process */
  protected abstract readonly what: string

  async run(onRunning: (r: RunningProcess) => void): Promise<void> {
    const { channel, conn, ctx } = this
    const pty = this.requests.pty
    channel.on('error', () => undefined)
    channel.stderr.on('error', () => undefined)
    channel.once('close', () => (this.closed = true))
    guardInbox(channel, ctx.channelInboxLimit, () => {
      ctx.log(`ssh gateway: cut a channel to ${conn.route ?? '?'}: its client sent past its window`)
      conn.socket.destroy()
    })
    const eol = pty ? '\r\n' : '\n'
    const tell = (line: string) => {
      if (!this.closed) channel.stderr.write(`berth: ${line}${eol}`)
    }
    const refuse = (message: string) => {
      tell(message)
      if (!this.closed) {
        channel.exit(255)
        channel.end()
      }
    }
    if (conn.refusal || !conn.sessionId) return refuse(conn.refusal ?? 'session not found')
    const sessionId = conn.sessionId
    let reached: Reached
    try {
      reached = await ctx.routes.reach(sessionId, tell, () => this.closed)
    } catch (e) {
      return refuse(e instanceof BerthError ? e.message : `cannot reach the session: ${(e as Error).message}`)
    }
    if (this.closed) return
    // a devcontainer's remoteUser and remoteEnv hold for ssh too
    const remote = remoteOf(reached.row)
    const env: Record<string, string> = { ...remote.env, ...this.requests.env, ...sshEnv(conn.remote, ctx.gatewayPort()) }
    if (pty) env.TERM = pty.term
    let agent: { socketPath: string; stop(): void } | undefined
    if (this.requests.agentRequested && conn.client) {
      try {
        agent = await ctx.agent.start(conn.client, reached)
        env.SSH_AUTH_SOCK = agent.socketPath
      } catch (e) {
        tell(`agent forwarding is unavailable in this session: ${(e as Error).message}`)
      }
    }
    let proc
    try {
      proc = await startContainerProcess(reached.engine.docker, reached.containerId, { ...this.spec(), tty: !!pty, env, user: remote.user })
    } catch (e) {
      agent?.stop()
      return refuse(`cannot start ${this.what} in session ${reached.row.route}: ${(e as Error).message.split('\n')[0]}`)
    }
    if (this.closed) {
      proc.stream.destroy()
      agent?.stop()
      return
    }
    if (pty) proc.resize(pty.cols, pty.rows)
    const touch = () => {
      conn.lastActive = Date.now()
      ctx.activity.touch(sessionId)
    }
    const piped = pipeProcess(proc, channel, conn.socket, ctx.bounds, touch)
    onRunning({ reached, resize: (c, r) => proc.resize(c, r), pid: piped.pid })
    const unlisten = ctx.live.add(sessionId, tell)
    const foreground = this.foreground
    if (foreground) ctx.activity.foreground(sessionId, 1)
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
      if (!this.closed) {
        channel.exit(code ?? 255)
        channel.end()
      }
    } finally {
      exited = true
      unlisten()
      agent?.stop()
      if (foreground) ctx.activity.foreground(sessionId, -1)
    }
  }
}

/** `ssh route`: the user's login shell. */
export class ShellChannel extends ProcessChannel {
  protected readonly what = 'the shell'
  protected spec(): Omit<ProcessSpec, 'tty' | 'env'> {
    return { kind: 'shell' }
  }
}

/** `ssh route command`: the command through the user's shell. */
export class ExecChannel extends ProcessChannel {
  protected readonly what = 'the command'
  protected override readonly foreground = true
  constructor(ctx: ProcessChannelContext, conn: GatewayConn, channel: ServerChannel, requests: ChannelRequests, private readonly command: string) {
    super(ctx, conn, channel, requests)
  }

  protected spec(): Omit<ProcessSpec, 'tty' | 'env'> {
    return { kind: 'exec', command: this.command }
  }
}

/** `sftp route` (and scp, which speaks sftp today): the container's own sftp-server. */
export class SftpChannel extends ProcessChannel {
  protected readonly what = 'the sftp'
  protected spec(): Omit<ProcessSpec, 'tty' | 'env'> {
    return { kind: 'sftp' }
  }
}
