// Debian's Chromium driven over its own DevTools pipe with only what a benchmark needs (open a
// page, evaluate, type, trace), and nothing that watches the network. playwright enables DevTools'
// Network domain on every page and worker, which copies every WebSocket frame to the driver: in a
// terminal flood that cost about a quarter of the machine's CPU (bench/ui measures both), work a
// user's browser never does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/browser'

type Params = Record<string, unknown>
interface Message {
  id?: number
  method?: string
  params?: Params
  result?: Params
  error?: { message: string }
  sessionId?: string
}

/** One DevTools session: the browser's own (no id) or a page's. */
export interface Cdp {
  send(method: string, params?: Params): Promise<Params>
  /** returns the function that stops listening */
  on(method: string, listener: (params: Params) => void): () => void
  once(method: string, listener: (params: Params) => void): void
}

export interface BarePage {
  readonly cdp: Cdp
  /** Evaluates an expression in the page (a promise is awaited); throws what the page threw. */
  evaluate<T>(expression: string): Promise<T>
  /** Types text into the focused element, as an input method would. */
  insertText(text: string): Promise<void>
  pressEnter(): Promise<void>
  goto(url: string): Promise<void>
  close(): Promise<void>
}

export class BareChromium {
  private nextId = 1
  private readonly pending = new Map<number, { resolve: (r: Params) => void; reject: (e: Error) => void }>()
  private readonly listeners = new Set<(m: Message) => void>()

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
  ) {
    const out = child.stdio[4] as Readable
    let buffered = ''
    out.on('data', (d: Buffer) => {
      buffered += d.toString()
      let end: number
      while ((end = buffered.indexOf('\0')) >= 0) {
        const m = JSON.parse(buffered.slice(0, end)) as Message
        buffered = buffered.slice(end + 1)
        this.dispatch(m)
      }
    })
    child.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error('Chromium exited'))
      this.pending.clear()
    })
  }

  /**
   * `foreground`: the browser gets about what a desktop gives its apps. Here, with no desktop, it is
   * one of the kernel's autogroups (one per session: tmux, dockerd, each containerd-shim, the
   * core...), each with an equal share of two cores; in its own session at autogroup nice -5 it
   * gets about half of them while four others are busy, as a desktop's user slice does against
   * the system's services. Needs root; `priority` says what it got.
   */
  static async launch(opts: { foreground?: boolean } = {}, viewport = { width: 1360, height: 860 }): Promise<BareChromium> {
    const profile = mkdtempSync(join(tmpdir(), 'berth-bare-chromium-'))
    const child = spawn(CHROMIUM, [...CHROMIUM_ARGS, '--remote-debugging-pipe', `--user-data-dir=${profile}`, `--window-size=${viewport.width},${viewport.height}`, 'about:blank'], {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'],
      // its own session, so its own autogroup
      detached: !!opts.foreground,
    })
    const browser = new BareChromium(child, profile)
    if (opts.foreground) browser.priority = foreground(child.pid!)
    await browser.session().send('Browser.getVersion')
    return browser
  }

  /** what the browser got of the scheduler */
  priority = 'as started'

  private profileInUse(): boolean {
    try {
      return execFileSync('pgrep', ['-f', this.profile], { encoding: 'utf8' }).trim() !== ''
    } catch {
      return false // pgrep exits 1 when nothing matches
    }
  }

  private dispatch(m: Message): void {
    if (m.id !== undefined) {
      const p = this.pending.get(m.id)
      this.pending.delete(m.id)
      if (m.error) p?.reject(new Error(m.error.message))
      else p?.resolve(m.result ?? {})
      return
    }
    for (const l of [...this.listeners]) l(m)
  }

  /** The browser's session, or a page's by its session id. */
  session(sessionId?: string): Cdp {
    const matches = (m: Message, method: string) => m.method === method && m.sessionId === sessionId
    return {
      send: (method, params = {}) =>
        new Promise((resolve, reject) => {
          const id = this.nextId++
          this.pending.set(id, { resolve, reject })
          ;(this.child.stdio[3] as Writable).write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0')
        }),
      on: (method, listener) => {
        const l = (m: Message) => void (matches(m, method) && listener(m.params ?? {}))
        this.listeners.add(l)
        return () => void this.listeners.delete(l)
      },
      once: (method, listener) => {
        const l = (m: Message) => {
          if (!matches(m, method)) return
          this.listeners.delete(l)
          listener(m.params ?? {})
        }
        this.listeners.add(l)
      },
    }
  }

  async newPage(): Promise<BarePage> {
    const browser = this.session()
    const { targetId } = (await browser.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string }
    const { sessionId } = (await browser.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string }
    const cdp = this.session(sessionId)
    await cdp.send('Page.enable')
    const key = (type: string) => cdp.send('Input.dispatchKeyEvent', { type, key: 'Enter', code: 'Enter', windowsVirtualKeyCode: 13, nativeVirtualKeyCode: 13, ...(type === 'keyDown' ? { text: '\r' } : {}) })
    return {
      cdp,
      evaluate: async <T>(expression: string) => {
        const r = (await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })) as { result: { value: T }; exceptionDetails?: { exception?: { description?: string }; text: string } }
        if (r.exceptionDetails) throw new Error(r.exceptionDetails.exception?.description ?? r.exceptionDetails.text)
        return r.result.value
      },
      insertText: async (text) => void (await cdp.send('Input.insertText', { text })),
      pressEnter: async () => {
        await key('keyDown')
        await key('keyUp')
      },
      goto: async (url) => {
        const loaded = new Promise<void>((resolve) => cdp.once('Page.loadEventFired', () => resolve()))
        await cdp.send('Page.navigate', { url })
        await loaded
      },
      close: async () => void (await browser.send('Target.closeTarget', { targetId })),
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r))
      this.child.kill()
      await exited
    }
    // its helper processes outlive it for a moment, writing to the profile
    for (let i = 0; i < 50 && this.profileInUse(); i++) await new Promise((r) => setTimeout(r, 100))
    rmSync(this.profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 })
  }
}

/** Raises the autogroup of a process in its own session to about a desktop app's share; says what it got. */
function foreground(pid: number): string {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, '-5')
    return `foreground (${readFileSync(`/proc/${pid}/autogroup`, 'utf8').trim()})`
  } catch (e) {
    return `as started (no foreground priority: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`
  }
}
