// `berth serve`: the UI for a browser, on 127.0.0.1 only, behind a random token in the URL it
// prints. No token (or another one) is refused, and so is a WebSocket from another origin.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { networkInterfaces } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { readBinaryStreamFrame, type StreamBytes } from '../../src/shared/stream-frames'
import { BerthHome, BIN, until } from '../support/berth'
import { ensureRendererBuilt } from '../support/renderer-build'
import { testHost } from '../support/testhost'

interface Served {
  child: ChildProcess
  url: string
  port: number
  stderr: () => string
}

function serve(berth: BerthHome, args: string[] = ['--port', '0']): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: berth.env() })
    let out = ''
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^(http:\/\/127\.0\.0\.1:(\d+)\/[A-Za-z0-9_-]+\/)\n/.exec(out)
      if (m) resolve({ child, url: m[1]!, port: Number(m[2]), stderr: () => err })
    })
    child.on('exit', (code) => reject(new Error(`berth serve exited ${code}: ${err}`)))
  })
}

/** A WebSocket to the door; resolves once open, or with the HTTP status that refused it. */
function socket(url: string, origin: string | undefined): Promise<{ ws?: WebSocket; refused?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, origin ? { origin } : {})
    ws.once('open', () => resolve({ ws }))
    ws.once('unexpected-response', (_req, res) => resolve({ refused: res.statusCode ?? 0 }))
    ws.once('error', () => resolve({ refused: -1 }))
  })
}

/** Calls over the door with the control socket's frames (and, if asked for, binary stream frames). */
function caller(ws: WebSocket) {
  let id = 0
  const events: Array<{ name: string; payload: any }> = []
  const binary: StreamBytes[] = []
  const pending = new Map<number, (f: any) => void>()
  ws.on('message', (m, isBinary) => {
    if (isBinary) return void binary.push(readBinaryStreamFrame(new Uint8Array(m as Buffer))!)
    const f = JSON.parse(m.toString())
    if (f.t === 'event') events.push(f)
    else pending.get(f.id)?.(f)
  })
  return {
    events,
    binary,
    call: (name: string, args: unknown) =>
      new Promise<any>((resolve) => {
        const n = ++id
        pending.set(n, resolve)
        ws.send(JSON.stringify({ t: 'call', id: n, name, args }))
      }),
  }
}

describe('berth serve', () => {
  const berth = new BerthHome('serve')
  let served: Served

  beforeAll(async () => {
    ensureRendererBuilt()
    served = await serve(berth)
  })
  afterAll(async () => {
    served?.child.kill('SIGINT')
    await berth.cleanup()
  })

  it('hands the UI only to the printed URL, on the loopback address', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{32}\/$/)
    const page = await fetch(served.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    const html = await page.text()
    expect(html).toContain('<div id="root">')
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1]!
    expect((await fetch(served.url + script)).status).toBe(200)

    const base = `http://127.0.0.1:${served.port}`
    expect((await fetch(`${base}/`)).status).toBe(403)
    expect((await fetch(`${base}/${script}`)).status).toBe(403)
    const wrong = served.url.replace(/\/([A-Za-z0-9_-]+)\/$/, (_m, t: string) => `/${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}/`)
    const refused = await fetch(wrong)
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('needs the token')
    // paths that climb out of the UI's folder, sent as they are (fetch would normalise them)
    const token = new URL(served.url).pathname
    for (const climb of ['../../../../etc/passwd', '%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd', '..%2f..%2f..%2f..%2fetc%2fpasswd', '.vite/manifest.json']) {
      expect(await rawGet(served.port, `${token}${climb}`)).toMatch(/^HTTP\/1\.1 404/)
    }
    expect((await fetch(served.url, { method: 'POST' })).status).toBe(405)
    // another name for this address (DNS rebinding) is refused
    expect(await rawGet(served.port, token, `evil.example:${served.port}`)).toMatch(/^HTTP\/1\.1 403/)
    // nothing listens beyond the loopback address
    const listening = await new Promise<boolean>((resolve) => {
      const s = net.connect(served.port, testHostAddress(), () => {
        s.destroy()
        resolve(true)
      })
      s.on('error', () => resolve(false))
    })
    expect(listening).toBe(false)
  })

  it('carries the contract over a WebSocket from its own origin, and nothing else', async () => {
    const wsUrl = served.url.replace(/^http/, 'ws') + 'ws'
    const origin = `http://127.0.0.1:${served.port}`
    expect(await socket(wsUrl, 'http://evil.example')).toEqual({ refused: 403 })
    expect(await socket(wsUrl, undefined)).toEqual({ refused: 403 })
    expect(await socket(wsUrl.replace(/\/[A-Za-z0-9_-]+\/ws$/, '/nottoken/ws'), origin)).toEqual({ refused: 403 })

    const { ws } = await socket(wsUrl, origin)
    expect(ws).toBeDefined()
    const door = caller(ws!)
    expect(await door.call('daemon.info', {})).toMatchObject({ t: 'result', result: { host: 'daemon' } })
    expect(await door.call('session.create', { image: 42 })).toMatchObject({ t: 'error', error: { code: 'usage' } })
    expect(await door.call('events.subscribe', {})).toMatchObject({ result: { ok: true } })

    // the same session verbs and streams as the CLI: a command's output arrives as events
    const created = await door.call('session.create', { image: testHost().tinyImage, name: 'from-browser' })
    expect(created).toMatchObject({ t: 'result', result: { name: 'from-browser', state: 'running' } })
    expect(door.events.some((e) => e.name === 'session.changed' && e.payload.name === 'from-browser')).toBe(true)
    const opened = await door.call('exec.open', { id: 'from-browser', cmd: ['sh', '-c', 'echo $((6*7))'] })
    await until(() => door.events.some((e) => e.name === 'stream.exit' && e.payload.streamId === opened.result.streamId), 'the command to end')
    const out = door.events
      .filter((e) => e.name === 'stream.data' && e.payload.streamId === opened.result.streamId)
      .map((e) => Buffer.from(e.payload.data, 'base64').toString())
      .join('')
    expect(out).toBe('42\n')
    // the events log streams too
    expect(door.events.some((e) => e.name === 'event.appended' && e.payload.sessionId === created.result.id)).toBe(true)
    ws!.close()

    // a client that asks for binary stream frames (the UI's socket worker) gets its output as bytes
    const binary = await socket(`${wsUrl}?streams=binary`, origin)
    const fast = caller(binary.ws!)
    const printf = await fast.call('exec.open', { id: 'from-browser', cmd: ['sh', '-c', 'printf "\\033[1mbold\\377"; echo oops >&2'] })
    await until(() => fast.events.some((e) => e.name === 'stream.exit' && e.payload.streamId === printf.result.streamId), 'the command to end')
    const mine = fast.binary.filter((d) => d.streamId === printf.result.streamId)
    expect(Buffer.concat(mine.filter((d) => d.fd === 1).map((d) => d.bytes))).toEqual(Buffer.from('\x1b[1mbold\xff', 'latin1'))
    expect(Buffer.concat(mine.filter((d) => d.fd === 2).map((d) => d.bytes)).toString()).toBe('oops\n')
    expect(fast.events.some((e) => e.name === 'stream.data')).toBe(false)
    binary.ws!.close()
    await berth.json(['finish', 'from-browser'])
  })

  it('lets no page write a sleep hook where it chooses: only a hook folder, while the command line names any', async () => {
    const wsUrl = served.url.replace(/^http/, 'ws') + 'ws'
    const { ws } = await socket(wsUrl, `http://127.0.0.1:${served.port}`)
    const door = caller(ws!)
    const dir = `/tmp/berth-not-a-hook-folder-${process.pid}`
    const refused = await door.call('power.installHook', { platform: 'linux', dir })
    expect(refused).toMatchObject({ t: 'error', error: { code: 'refused' } })
    expect(refused.error.message).toMatch(/^not a folder sleep hooks live in/)
    expect(existsSync(dir)).toBe(false)
    // nor a hook, in the very folder sleep hooks live in, that runs a command of its choosing as root
    const hook = '/usr/lib/systemd/system-sleep/berth'
    const before = existsSync(hook) ? readFileSync(hook, 'utf8') : null
    const chosen = await door.call('power.installHook', { platform: 'linux', dir: '/usr/lib/systemd/system-sleep', berth: ['/bin/sh', '-c', 'touch /tmp/owned-by-a-page'] })
    expect(chosen).toMatchObject({ t: 'error', error: { code: 'refused', message: 'the command a sleep hook runs is chosen from the berth command line only' } })
    expect(existsSync(hook) ? readFileSync(hook, 'utf8') : null).toBe(before)
    ws!.close()
    // the control socket (the user's own shell) may
    try {
      const written = await berth.call('power.installHook', { platform: 'linux', dir, berth: ['/bin/true'] })
      expect(written.files.map((f) => f.path)).toEqual([`${dir}/berth`])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('says clearly when a port is taken or not a port, and stops on Ctrl-C', async () => {
    const taken = await berth.run(['serve', '--port', String(served.port)], { timeoutMs: 30_000 })
    expect(taken.code).toBe(1)
    expect(taken.stderr).toContain(`port ${served.port} on 127.0.0.1 is taken`)
    const bad = await berth.run(['serve', '--port', 'eighty'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('not a port: eighty')
    expect(bad.stderr).toContain('usage: berth serve')

    const second = await serve(berth)
    expect(second.url).not.toBe(served.url)
    expect((await fetch(second.url)).status).toBe(200)
    second.child.kill('SIGINT')
    const code = await new Promise<number | null>((r) => second.child.on('exit', r))
    expect(code).toBe(0)
    await expect(fetch(second.url)).rejects.toThrow()
    // the first one still serves
    expect((await fetch(served.url)).status).toBe(200)
  })
})

/** A request sent byte for byte, with its answer. */
function rawGet(port: number, path: string, host = `127.0.0.1:${port}`): Promise<string> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))
    let data = ''
    s.on('data', (d) => (data += d.toString()))
    s.on('end', () => resolve(data))
  })
}

/** An address of this machine other than loopback, to show the door is not reachable there. */
function testHostAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address
  return '127.0.0.2'
}
