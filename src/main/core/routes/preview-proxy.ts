// Preview addresses: http://<route>-<port>-<key>.localhost:<previewPort>/ reaches a web server
// listening on <port> inside the session (on any of its addresses, its own 127.0.0.1 included),
// wherever it runs now (HTTP and WebSocket upgrades). Each request resolves the route again, so a
// bookmarked link keeps working after pause, resume, restart and a move. Who may use an address is
// preview-access.ts's business: a request it refuses, or whose key is wrong, gets the one refusal
// and reaches nothing (no lookup of the session beyond its key, no resume, no activity).
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { ActivityTap } from './activity'
import type { ContainerPorts } from './container-ports'
import { listenOnFreePort } from './free-port'
import { parsePreviewHost, REFUSAL_BODY, REFUSAL_HEADERS, REFUSAL_STATUS, requestAllowed } from './preview-access'
import type { PreviewSecrets } from './preview-secrets'
import type { RouteTable } from './route-table'

// hop-by-hop headers are the proxy's own business (RFC 9110 7.6.1)
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

interface Target {
  sessionId: string
  agent: http.Agent
}

export interface PreviewDeps {
  routes: RouteTable
  secrets: PreviewSecrets
  ports: ContainerPorts
  activity: ActivityTap
  log: (message: string) => void
}

export class PreviewProxy {
  private readonly server: http.Server
  /** one keep-alive pool per container and port: a new container (restart, move) gets a new pool */
  private readonly agents = new Map<string, http.Agent>()
  private boundPort = 0

  constructor(private readonly deps: PreviewDeps) {
    // nothing a browser sends may take the core down: a failure answers 500 and is logged
    this.server = http.createServer((req, res) =>
      this.onRequest(req, res).catch((e: Error) => {
        deps.log(`preview proxy: ${e.message}`)
        answer(res, 500, 'the preview proxy failed on this request')
      }),
    )
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.onUpgrade(req, socket, head).catch((e: Error) => {
        deps.log(`preview proxy: ${e.message}`)
        socket.destroy()
      }),
    )
    this.server.on('clientError', (_e, socket) => socket.destroy())
    this.server.headersTimeout = 30_000
    this.server.requestTimeout = 0
    this.server.keepAliveTimeout = 5_000
    this.server.maxConnections = 512
  }

  get port(): number {
    return this.boundPort
  }

  get listening(): boolean {
    return this.server.listening
  }

  async listen(preferred: number): Promise<number> {
    this.boundPort = await listenOnFreePort(this.server, preferred)
    return this.boundPort
  }

  async stopListening(): Promise<void> {
    if (!this.server.listening) return
    await new Promise<void>((r) => this.server.close(() => r()))
  }

  async close(): Promise<void> {
    const closing = this.stopListening()
    this.server.closeAllConnections()
    for (const a of this.agents.values()) a.destroy()
    this.agents.clear()
    await closing
  }

  /** Drops the pools of a container that is gone or no longer running. */
  forget(containerId: string): void {
    for (const [key, agent] of this.agents) {
      if (key.startsWith(`${containerId}:`)) {
        agent.destroy()
        this.agents.delete(key)
      }
    }
  }

  private agentFor(engine: Engine, containerId: string, port: number): http.Agent {
    const key = `${containerId}:${port}`
    let agent = this.agents.get(key)
    if (!agent) {
      const ports = this.deps.ports
      agent = new (class extends http.Agent {
        override createConnection(_opts: unknown, cb: (err: Error | null, s?: Duplex) => void): undefined {
          ports.connect(engine, containerId, port).then(
            (s) => cb(null, s),
            (e: Error) => cb(e),
          )
          return undefined
        }
      })({ keepAlive: true, maxSockets: 32, maxFreeSockets: 8, timeout: 60_000 })
      this.agents.set(key, agent)
    }
    return agent
  }

  /**
   * The session a request may reach: its Host names a preview address whose key is right, and the
   * browser says it is the user's or the preview's own. Undefined means the one refusal.
   */
  private authorise(req: IncomingMessage): { sessionId: string; port: number; route: string } | undefined {
    const addr = parsePreviewHost(req.headers.host, this.boundPort)
    if (!addr || !requestAllowed(req, addr, this.boundPort)) return undefined
    const sessionId = this.deps.secrets.verify(addr.route, addr.secret)
    return sessionId ? { sessionId, port: addr.port, route: addr.route } : undefined
  }

  /** Where an authorised request goes, or an answer with a status and one sentence. */
  private async target(req: IncomingMessage): Promise<Target & { port: number; route: string } | { status: number; message: string } | 'refused'> {
    const who = this.authorise(req)
    if (!who) return 'refused'
    try {
      const reached = await this.deps.routes.reach(who.sessionId)
      this.deps.activity.touch(who.sessionId, 'preview')
      return { sessionId: who.sessionId, port: who.port, route: who.route, agent: this.agentFor(reached.engine, reached.containerId, who.port) }
    } catch (e) {
      const message = e instanceof BerthError ? e.message : (e as Error).message
      const status = e instanceof BerthError && e.code === 'refused' && message.startsWith('session finished') ? 410 : 503
      return { status, message }
    }
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    req.on('error', () => undefined)
    res.on('error', () => undefined)
    const t = await this.target(req)
    if (t === 'refused') return refuse(res)
    if ('status' in t) return answer(res, t.status, t.message)
    const upstream = http.request({
      agent: t.agent,
      method: req.method,
      path: req.url,
      headers: forwardHeaders(req),
      setHost: false,
    })
    upstream.on('response', (up) => {
      this.deps.activity.touch(t.sessionId, 'preview')
      const headers: Record<string, string | string[]> = {}
      for (const [k, v] of Object.entries(up.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v
      // the address is the key: pages of the preview do not hand it to other sites in Referer
      headers['referrer-policy'] ??= 'same-origin'
      res.writeHead(up.statusCode ?? 502, up.statusMessage, headers)
      up.pipe(res)
      up.on('error', () => res.destroy())
    })
    upstream.on('error', (e) => {
      if (res.headersSent) res.destroy()
      else answer(res, 502, `nothing answers on port ${t.port} in session ${t.route}: ${e.message}`)
    })
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy()
    })
    req.pipe(upstream)
  }

  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => undefined)
    const t = await this.target(req)
    if (t === 'refused') return void socket.end(REFUSAL_RAW)
    if ('status' in t) {
      socket.end(`HTTP/1.1 ${t.status} ${http.STATUS_CODES[t.status] ?? ''}\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n${t.message}\n`)
      return
    }
    const headers = forwardHeaders(req)
    headers.connection = 'Upgrade'
    if (req.headers.upgrade) headers.upgrade = req.headers.upgrade
    const upstream = http.request({ agent: t.agent, method: req.method, path: req.url, headers, setHost: false })
    upstream.on('upgrade', (up, upSocket: Duplex, upHead: Buffer) => {
      upSocket.on('error', () => undefined)
      const lines = [`HTTP/1.1 ${up.statusCode ?? 101} ${up.statusMessage ?? 'Switching Protocols'}`]
      for (let i = 0; i < up.rawHeaders.length; i += 2) lines.push(`${up.rawHeaders[i]}: ${up.rawHeaders[i + 1]}`)
      socket.write(lines.join('\r\n') + '\r\n\r\n')
      if (upHead.length) socket.write(upHead)
      if (head.length) upSocket.write(head)
      const touch = () => this.deps.activity.touch(t.sessionId, 'preview')
      socket.on('data', touch)
      upSocket.on('data', touch)
      socket.pipe(upSocket).pipe(socket)
      socket.once('close', () => upSocket.destroy())
      upSocket.once('close', () => socket.destroy())
    })
    upstream.on('response', (up) => {
      // the server declined the upgrade: pass its answer on and close
      const lines = [`HTTP/1.1 ${up.statusCode ?? 502} ${up.statusMessage ?? ''}`]
      for (let i = 0; i < up.rawHeaders.length; i += 2) lines.push(`${up.rawHeaders[i]}: ${up.rawHeaders[i + 1]}`)
      socket.write(lines.join('\r\n') + '\r\n\r\n')
      up.pipe(socket)
    })
    upstream.on('error', (e) => socket.end(`HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nnothing answers on port ${t.port} in session ${t.route}: ${e.message}\n`))
    socket.once('close', () => upstream.destroy())
    upstream.end()
  }
}

function forwardHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v
  // dev servers check Host (Vite allows *.localhost); keep the one the browser sent
  if (req.headers.host) out.host = req.headers.host
  const fwd = req.headers['x-forwarded-for']
  out['x-forwarded-for'] = [fwd, req.socket.remoteAddress].filter(Boolean).join(', ')
  out['x-forwarded-proto'] = 'http'
  if (req.headers.host) out['x-forwarded-host'] = req.headers.host
  return out
}

/** The one refusal, as the same bytes on every path (a page must not tell one reason from another). */
function refuse(res: ServerResponse): void {
  if (res.headersSent || res.destroyed) return void res.destroy()
  res.writeHead(REFUSAL_STATUS, REFUSAL_HEADERS)
  res.end(REFUSAL_BODY)
}

const REFUSAL_RAW =
  `HTTP/1.1 ${REFUSAL_STATUS} ${http.STATUS_CODES[REFUSAL_STATUS]}\r\n` +
  Object.entries(REFUSAL_HEADERS)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('') +
  `connection: close\r\n\r\n${REFUSAL_BODY}`

function answer(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent || res.destroyed) return void res.destroy()
  const body = `<!doctype html><meta charset="utf-8"><title>Berth preview</title><p>${escapeHtml(message)}</p>\n`
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
