// The CLI's side of the control socket: typed calls, events, and the daemon started on demand.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, openSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import type { CallArgs, CallName, CallResult, EventName, EventPayload } from '../../shared/contract'
import { BerthError } from '../../shared/errors'
import { ensurePrivateDir, ensurePrivateFile } from '../core/durable-file'
import { ServerFrame } from '../../shared/wire'
import { logsDir } from '../core/logs/rotating-log'

type Listener = (name: string, payload: unknown) => void

export class ControlClient {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: BerthError) => void }>()
  private readonly listeners = new Set<Listener>()
  private readonly closeListeners = new Set<() => void>()
  private buf = ''

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => this.onData(chunk))
    socket.on('close', () => {
      for (const p of this.pending.values()) p.reject(new BerthError('unavailable', 'the Berth daemon closed the connection'))
      this.pending.clear()
      for (const l of this.closeListeners) l()
    })
    socket.on('error', () => undefined)
  }

  static connect(path: string): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect(path)
      s.once('connect', () => resolve(new ControlClient(s)))
      s.once('error', reject)
    })
  }

  private onData(chunk: string): void {
    this.buf += chunk
    let nl: number
    while ((nl = this.buf.indexOf('\n')) >= 0) {
      const line = this.buf.slice(0, nl)
      this.buf = this.buf.slice(nl + 1)
      const parsed = ServerFrame.safeParse(JSON.parse(line))
      if (!parsed.success) continue
      const f = parsed.data
      if (f.t === 'event') {
        for (const l of this.listeners) l(f.name, f.payload)
        continue
      }
      const p = this.pending.get(f.id)
      if (!p) continue
      this.pending.delete(f.id)
      if (f.t === 'result') p.resolve(f.result)
      else p.reject(new BerthError(f.error.code, f.error.message, f.error.details))
    }
  }

  call<N extends CallName>(name: N, args: CallArgs<N>): Promise<CallResult<N>> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject })
      this.socket.write(JSON.stringify({ t: 'call', id, name, args }) + '\n')
    })
  }

  on<N extends EventName>(name: N, fn: (payload: EventPayload<N>) => void): () => void {
    const l: Listener = (n, p) => {
      if (n === name) fn(p as EventPayload<N>)
    }
    this.listeners.add(l)
    return () => this.listeners.delete(l)
  }

  /** Called once the daemon's side of the connection is gone. */
  onClose(fn: () => void): void {
    this.closeListeners.add(fn)
  }

  close(): void {
    this.socket.end()
  }
}

export const controlSocket = (home: string) => join(home, 'control.sock')

/** Connects to the Berth that drives this home, starting a daemon when none runs. */
export async function connectOrStart(home: string, entry: string): Promise<ControlClient> {
  const path = controlSocket(home)
  try {
    return await ControlClient.connect(path)
  } catch (e) {
    const code = (e as { code?: string }).code
    if (code !== 'ENOENT' && code !== 'ECONNREFUSED') throw e
  }
  startDaemon(home, entry)
  return await waitForDaemon(home, 15_000)
}

export function startDaemon(home: string, entry: string): number {
  ensurePrivateDir(home)
  // the daemon writes its own log (logs/daemon.log, rotated); what reaches its stderr besides
  // (a crash of the runtime itself) lands in logs/daemon-stderr.log, kept for the last start only
  mkdirSync(logsDir(home), { recursive: true, mode: 0o700 })
  const stderrFile = join(logsDir(home), 'daemon-stderr.log')
  const out = openSync(stderrFile, 'w', 0o600)
  ensurePrivateFile(stderrFile)
  const child = spawn(process.execPath, [entry, 'daemon', '--foreground'], {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, BERTH_HOME: home, BERTH_DAEMON_DETACHED: '1' },
  })
  child.unref()
  return child.pid ?? -1
}

export async function waitForDaemon(home: string, timeoutMs: number): Promise<ControlClient> {
  const path = controlSocket(home)
  const deadline = Date.now() + timeoutMs
  let last: unknown
  while (Date.now() < deadline) {
    if (existsSync(path)) {
      try {
        return await ControlClient.connect(path)
      } catch (e) {
        last = e
      }
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new BerthError('timeout', `the Berth daemon did not start within ${timeoutMs / 1000} s; see ${join(logsDir(home), 'daemon.log')} and daemon-stderr.log there${last ? ` (${(last as Error).message})` : ''}`)
}
