// An ssh "session" channel: gathers the client's env, pty, window-change, signal and agent requests,
// then hands its one shell, exec or sftp request to the channel class of that kind.
import type { ServerChannel, Session as SshSession } from 'ssh2'
import type { Settings } from '../../../shared/settings'
import { acceptableEnv, dim, ptyOf } from './channel-requests'
import { signalInContainer } from './container-process'
import type { GatewayConn } from './gateway-conn'
import { ExecChannel, ShellChannel, SftpChannel, type ChannelRequests, type ProcessChannel, type ProcessChannelContext, type RunningProcess } from './process-channel'

export interface SessionChannelContext extends ProcessChannelContext {
  settings: () => Settings
  maxEnv: number
}

export class SessionChannel {
  private readonly requests: ChannelRequests = { env: {}, pty: undefined, agentRequested: false }
  private running: RunningProcess | undefined

  constructor(
    private readonly ctx: SessionChannelContext,
    private readonly conn: GatewayConn,
    session: SshSession,
  ) {
    const requests = this.requests
    session.on('error', () => undefined)
    session.on('env', (accept, reject, info) => {
      const ok = Object.keys(requests.env).length < ctx.maxEnv && acceptableEnv(info.key, info.val)
      if (ok) requests.env[info.key] = info.val
      ;(ok ? accept : reject)?.()
    })
    session.on('pty', (accept, _reject, info) => {
      requests.pty = ptyOf(info)
      accept?.()
    })
    session.on('window-change', (accept, _reject, info) => {
      const pty = requests.pty
      if (pty) {
        pty.cols = dim(info.cols, pty.cols)
        pty.rows = dim(info.rows, pty.rows)
        this.running?.resize(pty.cols, pty.rows)
      }
      accept?.()
    })
    session.on('signal', (accept, _reject, info) => {
      const running = this.running
      const pid = running?.pid()
      const name = String(info.name ?? '').replace(/^SIG/, '')
      if (running && pid) void signalInContainer(running.reached.engine.docker, running.reached.containerId, pid, name).catch(() => undefined)
      accept?.()
    })
    session.on('auth-agent', (accept, reject) => {
      if (!ctx.settings().allowAgentForwarding) return reject?.()
      requests.agentRequested = true
      accept?.()
    })
    // accept() gives nothing for a second shell/exec/subsystem on the same channel: ignore those
    session.on('shell', (accept) => this.start(accept(), (ch) => new ShellChannel(ctx, conn, ch, requests)))
    session.on('exec', (accept, _reject, info) => this.start(accept(), (ch) => new ExecChannel(ctx, conn, ch, requests, info.command)))
    session.on('subsystem', (accept, reject, info) => {
      if (info.name !== 'sftp') return reject?.()
      this.start(accept(), (ch) => new SftpChannel(ctx, conn, ch, requests))
    })
  }

  private start(channel: ServerChannel | undefined, make: (channel: ServerChannel) => ProcessChannel): void {
    if (!channel) return
    make(channel).run((r) => (this.running = r)).catch((e: Error) => {
      this.ctx.log(`ssh gateway: ${this.conn.route ?? '?'}: ${e.message}`)
      try {
        channel.close()
      } catch {
        // already closed
      }
    })
  }
}
