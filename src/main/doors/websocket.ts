// The browser's door (`berth serve`): an HTTP server on 127.0.0.1 that hands out the renderer
// build and upgrades /TOKEN/ws to a WebSocket carrying the same frames as the control socket.
// Only its owner gets in: every request must carry the random token in its path, name this
// server in its Host header (no DNS rebinding) and, for the WebSocket, come from this origin.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { BerthError } from '../../shared/errors'
import { BINARY_STREAMS_QUERY } from '../../shared/stream-frames'
import type { Core } from '../core/core'
import { DoorConnection } from './door-connection'
import { readStatic, SECURITY_HEADERS } from './static-files'

/** Frames beyond this are not calls anyone sends (stream.write caps data at 1.5 MB of base64). */
const MAX_FRAME = 4 * 1024 * 1024
const HOST = '127.0.0.1'

export interface WebSocketDoorOptions {
  port: number
  rendererRoot: string
}

export class WebSocketDoor {
  readonly token = randomBytes(24).toString('base64url')
  private readonly server: http.Server
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME, perMessageDeflate: false })
  private readonly sockets = new Set<Socket>()
  private port = 0
  private closed = false
  onClose: () => void = () => undefined

  private constructor(
    private readonly core: Core,
    private readonly rendererRoot: string,
  ) {
    this.server = http.createServer((req, res) => void this.onRequest(req, res))
    this.server.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket as Socket, head))
    this.server.on('connection', (s) => {
      this.sockets.add(s)
      s.on('close', () => this.sockets.delete(s))
    })
  }

  static async open(core: Core, options: WebSocketDoorOptions): Promise<WebSocketDoor> {
    const door = new WebSocketDoor(core, options.rendererRoot)
    await new Promise<void>((resolve, reject) => {
      door.server.once('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EADDRINUSE') reject(new BerthError('busy', `port ${options.port} on ${HOST} is taken: choose another with --port, or --port 0 for a free one`))
        else if (e.code === 'EACCES') reject(new BerthError('refused', `port ${options.port} needs privileges: choose one above 1024, or --port 0 for a free one`))
        else reject(e)
      })
      door.server.listen(options.port, HOST, () => resolve())
    })
    door.port = (door.server.address() as AddressInfo).port
    return door
  }

  get url(): string {
    return `http://${HOST}:${this.port}/${this.token}/`
  }

  get boundPort(): number {
    return this.port
  }

  private hostAllowed(host: string | undefined): boolean {
    return host === `${HOST}:${this.port}` || host === `localhost:${this.port}`
  }

  private originAllowed(origin: string | undefined): boolean {
    return origin === `http://${HOST}:${this.port}` || origin === `http://localhost:${this.port}`
  }

  /** The path's first segment is the token, compared in constant time. */
  private tokenIn(path: string): { ok: boolean; rest: string } {
    const m = /^\/([^/?#]*)(.*)$/.exec(path)
    if (!m) return { ok: false, rest: '' }
    const given = Buffer.from(m[1]!)
    const want = Buffer.from(this.token)
    const ok = given.length === want.length && timingSafeEqual(given, want)
    return { ok, rest: m[2] ?? '' }
  }

  private async onRequest(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const deny = (status: number, message: string) => {
      res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' })
      res.end(message + '\n')
    }
    if (!this.hostAllowed(req.headers.host)) return deny(403, 'Berth answers only on its own address.')
    if (req.method !== 'GET' && req.method !== 'HEAD') return deny(405, 'Berth serves pages only.')
    const path = (req.url ?? '/').split('?')[0]!
    const { ok, rest } = this.tokenIn(path)
    if (!ok) return deny(403, 'This address needs the token that `berth serve` printed: open the exact URL it printed.')
    if (rest === '') {
      res.writeHead(301, { ...SECURITY_HEADERS, location: `/${this.token}/` })
      return void res.end()
    }
    const file = await readStatic(this.rendererRoot, rest)
    if (!file) return deny(404, 'Not found.')
    res.writeHead(200, { ...SECURITY_HEADERS, 'cache-control': file.cacheControl, 'content-type': file.contentType, 'content-length': file.body.length })
    res.end(req.method === 'HEAD' ? undefined : file.body)
  }

  private onUpgrade(req: http.IncomingMessage, socket: Socket, head: Buffer): void {
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      socket.destroy()
    }
    const [path, query] = (req.url ?? '/').split('?') as [string, string | undefined]
    const { ok, rest } = this.tokenIn(path)
    if (!ok || rest !== '/ws') return refuse(403, 'Forbidden')
    if (!this.hostAllowed(req.headers.host)) return refuse(403, 'Forbidden')
    if (!this.originAllowed(req.headers.origin)) return refuse(403, 'Forbidden')
    const binaryStreams = query?.split('&').includes(BINARY_STREAMS_QUERY) ?? false
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onSocket(ws, binaryStreams))
  }

  private onSocket(ws: WebSocket, binaryStreams: boolean): void {
    const conn = new DoorConnection(
      this.core,
      'websocket',
      (frame) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame))
      },
      binaryStreams
        ? (frame) => {
            if (ws.readyState === ws.OPEN) ws.send(frame, { binary: true })
          }
        : undefined,
    )
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(1003, 'text frames only')
      let parsed: unknown
      try {
        parsed = JSON.parse(data.toString())
      } catch {
        parsed = null
      }
      void conn.receive(parsed)
    })
    ws.on('close', () => conn.close())
    ws.on('error', () => ws.terminate())
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const ws of this.wss.clients) ws.terminate()
    this.wss.close()
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      for (const s of this.sockets) s.destroy()
    })
    this.onClose()
  }
}
