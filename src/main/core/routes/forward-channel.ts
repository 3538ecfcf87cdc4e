// `ssh -L` and `ssh -W` through the gateway: a direct-tcpip channel reaches a port of the
// connection's own session (named as localhost, its route or its .berth alias) and nothing else.
import type { Socket } from 'node:net'
import type { ServerChannel, TcpipRequestInfo } from 'ssh2'
import type { ActivityTap } from './activity'
import { channelSink, guardInbox, type ChannelBounds } from './channel-pipe'
import type { ContainerPorts } from './container-ports'
import { DockerStreamReader } from './docker-stream'
import type { GatewayLimits } from './gateway-limits'
import type { RouteTable } from './route-table'

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '0:0:0:0:0:0:0:1', 'ip6-localhost'])

/** What a forward needs of its connection (the gateway's own record of it). */
export interface ForwardConn {
  socket: Socket
  authenticated: boolean
  refusal: string | undefined
  route: string | undefined
  sessionId: string | undefined
  channels: number
  lastActive: number
}

export interface ForwardContext {
  conn: ForwardConn
  limits: GatewayLimits
  bounds: ChannelBounds
  routes: RouteTable
  ports: ContainerPorts
  activity: ActivityTap
  log: (message: string) => void
}

/** A direct-tcpip channel (`ssh -L` / `ssh -W`): only to a port of this connection's own session. */
export class ForwardChannel {
  constructor(
    private readonly f: ForwardContext,
    private readonly info: TcpipRequestInfo,
  ) {}

  async open(accept: () => ServerChannel, reject: () => void): Promise<void> {
    const { f, info } = this
    const conn = f.conn
    if (!conn.authenticated || conn.refusal || !conn.sessionId || conn.channels >= f.limits.maxChannelsPerConnection) return reject()
    const host = String(info.destIP ?? '').toLowerCase()
    const own = LOOPBACK_NAMES.has(host) || host === conn.route || host === `${conn.route}.berth`
    if (!own || !Number.isInteger(info.destPort) || info.destPort < 1 || info.destPort > 65535) {
      f.log(`ssh gateway: refused a forward from ${conn.route} to ${host}:${info.destPort}: only the session's own ports are reachable`)
      return reject()
    }
    conn.channels++
    let counted = true
    const uncount = () => {
      if (!counted) return
      counted = false
      conn.channels--
      conn.lastActive = Date.now()
    }
    let upstream
    try {
      const reached = await f.routes.reach(conn.sessionId)
      upstream = await f.ports.connect(reached.engine, reached.containerId, info.destPort)
    } catch {
      uncount()
      return reject()
    }
    if (conn.socket.destroyed) {
      uncount()
      upstream.destroy()
      return
    }
    const channel = accept()
    if (!channel) {
      uncount()
      upstream.destroy()
      return
    }
    const sessionId = conn.sessionId
    const touch = () => {
      conn.lastActive = Date.now()
      f.activity.touch(sessionId)
    }
    channel.on('error', () => undefined)
    upstream.on('error', () => undefined)
    guardInbox(channel, f.limits.channelInboxLimit, () => conn.socket.destroy())
    channel.on('data', touch)
    channel.pipe(upstream)
    const out = new DockerStreamReader(false, channelSink(channel, conn.socket, f.bounds, touch))
    out.on('error', () => upstream.destroy())
    upstream.pipe(out)
    out.on('finish', () => channel.end())
    const up = upstream
    let upEnded = false
    upstream.once('end', () => (upEnded = true))
    channel.once('close', () => {
      uncount()
      up.destroy()
      out.destroy()
    })
    // an upstream that ended cleanly closes the channel once its last bytes are sent (out's finish)
    upstream.once('close', () => {
      if (!upEnded) channel.close()
    })
  }
}
