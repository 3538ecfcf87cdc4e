// One terminal tab: an xterm.js instance bound to a view (a tmux session in the container).
// It outlives its React component (switching screens keeps it, and its output, alive), and it
// reattaches by itself: after a pause/resume or a move (once the session runs again), after a
// dropped connection, and after a blip while the view still exists.
import { FitAddon } from '@xterm/addon-fit'
import { WebglAddon } from '@xterm/addon-webgl'
import { Terminal, type ITheme } from '@xterm/xterm'
import type { SessionState } from '../../../shared/models'
import { CallError, type Client } from '../api/client'
import { describeError, type Problem } from '../api/errors'
import { binaryToBase64, fromBase64, textToBase64 } from './codec'
import { AckBatcher } from './flow-control'
import { FramePacer } from './frame-pacer'
import { skipEmptySelectionRedraws } from './selection-redraws'
import type { StreamRouter } from './stream-router'

export type TerminalStatus =
  | 'connecting' // opening the view
  | 'attached' // live
  | 'waiting' // the session is not running (paused, moving...): reattaches when it runs
  | 'ended' // the shell in the view exited; Enter starts a new one
  | 'closed' // the tab was closed (the view keeps running in the container)
  | 'error'

export interface TerminalSnapshot {
  status: TerminalStatus
  view: string | undefined
  persistent: boolean
  renderer: 'webgl' | 'dom'
  problem: Problem | null
}

export interface TerminalDeps {
  client: Client
  router: StreamRouter
  sessionId: string
  /** the session's state as the sessions store knows it */
  sessionState(): SessionState | undefined
  theme(): ITheme
  clipboard: { read(): Promise<string>; write(text: string): Promise<void> }
  onChange(snapshot: TerminalSnapshot): void
}

const LIGHT: ITheme = { background: '#fbfbfc', foreground: '#1d2329', cursor: '#1d2329', selectionBackground: '#b8d4f0' }
const DARK: ITheme = { background: '#0f1419', foreground: '#d7dde3', cursor: '#d7dde3', selectionBackground: '#2f4a66' }
export const terminalTheme = (dark: boolean): ITheme => (dark ? DARK : LIGHT)

const REATTACH_LIMIT = 5
const WRITE_SLICE = 16 * 1024

let hardware: boolean | undefined
export function hardwareWebgl(): boolean {
  if (hardware !== undefined) return hardware
  try {
    const gl = document.createElement('canvas').getContext('webgl2')
    if (!gl) return (hardware = false)
    const info = gl.getExtension('WEBGL_debug_renderer_info')
    const renderer = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER))
    hardware = !/swiftshader|llvmpipe|softpipe|software|basic render/i.test(renderer)
    gl.getExtension('WEBGL_lose_context')?.loseContext()
  } catch {
    hardware = false
  }
  return hardware
}

export class TerminalSession {
  readonly element: HTMLDivElement
  readonly term: Terminal
  private readonly fit = new FitAddon()
  private streamId: string | null = null
  private acks: AckBatcher | null = null
  /** bytes written to xterm.js and not yet parsed */
  private unparsed = 0
  private readonly pacer: FramePacer
  private opened = false
  private disposed = false
  private attempts = 0
  private resizeTimer: ReturnType<typeof setTimeout> | undefined
  private snapshot: TerminalSnapshot

  constructor(
    private readonly deps: TerminalDeps,
    view: string | undefined,
  ) {
    this.element = document.createElement('div')
    this.element.className = 'terminal-host'
    this.term = new Terminal({
      allowProposedApi: false,
      cursorBlink: true,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace',
      fontSize: 13,
      scrollback: 5000,
      theme: deps.theme(),
    })
    this.term.loadAddon(this.fit)
    this.pacer = new FramePacer(this.term, () => this.unparsed)
    this.snapshot = { status: 'connecting', view, persistent: true, renderer: 'dom', problem: null }
    this.term.onData((data) => this.input(textToBase64(data)))
    this.term.onBinary((data) => this.input(binaryToBase64(data)))
    this.term.onResize(({ cols, rows }) => this.resized(cols, rows))
    this.term.attachCustomKeyEventHandler((ev) => this.keys(ev))
  }

  get state(): TerminalSnapshot {
    return this.snapshot
  }

  /** The terminal's text, scrollback included (support and tests read it; the page could anyway). */
  text(tail?: number): string {
    const b = this.term.buffer.active
    const lines: string[] = []
    for (let i = tail ? Math.max(0, b.length - tail) : 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '')
    while (lines.length && lines[lines.length - 1] === '') lines.pop()
    return lines.join('\n')
  }

  get currentStream(): string | null {
    return this.streamId
  }

  private update(patch: Partial<TerminalSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch }
    this.deps.onChange(this.snapshot)
  }

  /** Puts the terminal into `container` (first time: opens xterm and picks a renderer). */
  mount(container: HTMLElement): void {
    if (this.element.parentElement !== container) container.appendChild(this.element)
    if (!this.opened) {
      this.opened = true
      this.term.open(this.element)
      skipEmptySelectionRedraws(this.term)
      this.update({ renderer: this.loadWebgl() ? 'webgl' : 'dom' })
    }
    this.fitNow()
  }

  /**
   * WebGL when a GPU draws it, else xterm's DOM renderer (also after a lost context): WebGL on a
   * software rasterizer (SwiftShader, llvmpipe) costs the main thread far more than the DOM.
   */
  private loadWebgl(): boolean {
    try {
      if (!hardwareWebgl()) return false
      const webgl = new WebglAddon()
      webgl.onContextLoss(() => {
        webgl.dispose()
        this.update({ renderer: 'dom' })
      })
      this.term.loadAddon(webgl)
      return true
    } catch {
      return false
    }
  }

  fitNow(): void {
    if (!this.opened || !this.element.isConnected) return
    try {
      this.fit.fit()
    } catch {
      // not laid out yet (a hidden tab): the next fit catches up
    }
  }

  focus(): void {
    this.term.focus()
  }

  setTheme(theme: ITheme): void {
    this.term.options.theme = theme
  }

  /** Opens (or reopens) the view; `history` asks for its earlier output (a fresh terminal). */
  async attach(history: boolean): Promise<void> {
    if (this.disposed) return
    this.update({ status: 'connecting', problem: null })
    try {
      const cols = Math.max(2, this.term.cols)
      const rows = Math.max(2, this.term.rows)
      const r = await this.deps.client.call('view.open', { id: this.deps.sessionId, view: this.snapshot.view, cols, rows, history })
      if (this.disposed) {
        void this.deps.client.call('stream.close', { streamId: r.streamId }).catch(() => undefined)
        return
      }
      this.bind(r.streamId)
      // a fit while the view was opening had no stream to tell: the shell would keep the old size
      if (this.term.cols !== cols || this.term.rows !== rows) this.resized(this.term.cols, this.term.rows)
      this.update({ status: 'attached', view: r.view, persistent: r.persistent })
    } catch (e) {
      if (this.disposed) return
      if (e instanceof CallError && e.code === 'conflict') return this.update({ status: 'waiting', problem: null })
      this.update({ status: 'error', problem: describeError(e) })
    }
  }

  private bind(streamId: string): void {
    this.streamId = streamId
    this.acks?.stop()
    const acks = new AckBatcher((bytes) => void this.deps.client.call('stream.ack', { streamId, bytes }).catch(() => undefined))
    this.acks = acks
    this.deps.router.claim(streamId, {
      data: (bytes) => {
        this.pacer.beforeWrite()
        // xterm.js yields to the page between writes, never inside one: a large batch goes in
        // slices, so no single parse holds the main thread (a screenful drawn by tmux parses slowly)
        for (let at = 0; at < bytes.length; at += WRITE_SLICE) {
          const slice = bytes.subarray(at, at + WRITE_SLICE)
          this.unparsed += slice.length
          this.term.write(slice, () => {
            this.unparsed -= slice.length
            acks.consumed(slice.length)
          })
        }
      },
      exit: () => {
        acks.stop()
        if (this.streamId === streamId) this.streamId = null
        void this.afterExit()
      },
    })
  }

  /** The terminal's stream ended: decide whether to wait, reattach, or say the shell ended. */
  private async afterExit(): Promise<void> {
    if (this.disposed || this.snapshot.status === 'closed') return
    if (this.deps.sessionState() !== 'running') return this.update({ status: 'waiting' })
    if (!this.snapshot.persistent) return this.update({ status: 'ended' })
    try {
      const views = await this.deps.client.call('view.list', { id: this.deps.sessionId })
      if (views.some((v) => v.name === this.snapshot.view) && this.attempts < REATTACH_LIMIT) {
        this.attempts++
        await new Promise((r) => setTimeout(r, 200 * this.attempts))
        return void this.attach(false)
      }
      this.update({ status: 'ended' })
    } catch {
      this.update({ status: this.deps.sessionState() === 'running' ? 'ended' : 'waiting' })
    }
  }

  /** The sessions store saw a new state for this session. */
  sessionChanged(state: SessionState): void {
    if (state === 'running' && this.snapshot.status === 'waiting') {
      this.attempts = 0
      void this.attach(false)
    } else if (state !== 'running' && (this.snapshot.status === 'connecting' || this.snapshot.status === 'error') && !this.streamId) {
      this.update({ status: 'waiting' })
    }
  }

  /** The link to the core came back: the old stream died with it. */
  reconnected(): void {
    if (this.snapshot.status === 'closed' || this.snapshot.status === 'ended') return
    if (this.streamId) this.deps.router.release(this.streamId)
    this.streamId = null
    this.acks?.stop()
    void this.attach(false)
  }

  /** A new shell in the same view, after the old one exited. */
  restart(): void {
    this.attempts = 0
    this.term.write('\r\n')
    void this.attach(false)
  }

  private input(b64: string): void {
    if (this.snapshot.status === 'ended') {
      // Enter starts a new shell in the view
      if (b64 === textToBase64('\r')) this.restart()
      return
    }
    const streamId = this.streamId
    if (!streamId) return
    void this.deps.client.call('stream.write', { streamId, data: b64 }).catch(() => undefined)
  }

  private resized(cols: number, rows: number): void {
    clearTimeout(this.resizeTimer)
    this.resizeTimer = setTimeout(() => {
      const streamId = this.streamId
      if (streamId) void this.deps.client.call('stream.resize', { streamId, cols, rows }).catch(() => undefined)
    }, 60)
  }

  /** Ctrl+Shift+C / Ctrl+Shift+V copy and paste (plain Ctrl+C stays the interrupt). */
  private keys(ev: KeyboardEvent): boolean {
    // Alt+Shift+1..4, T, W, [ and ] are the page's (screens, terminal tabs): they never reach the shell
    if (ev.altKey && ev.shiftKey && !ev.ctrlKey && !ev.metaKey && /^(Digit[1-4]|KeyT|KeyW|BracketLeft|BracketRight)$/.test(ev.code)) return false
    if ((ev.ctrlKey || ev.metaKey) && !ev.shiftKey && !ev.altKey && /^[1-4]$/.test(ev.key)) return false
    if (ev.type !== 'keydown' || !ev.ctrlKey || !ev.shiftKey || ev.altKey || ev.metaKey) return true
    const key = ev.key.toLowerCase()
    if (key === 'c') {
      void this.copy()
      ev.preventDefault()
      return false
    }
    if (key === 'v') {
      void this.paste()
      ev.preventDefault()
      return false
    }
    return true
  }

  async copy(): Promise<boolean> {
    const text = this.term.getSelection()
    if (!text) return false
    await this.deps.clipboard.write(text)
    return true
  }

  async paste(): Promise<void> {
    const text = await this.deps.clipboard.read().catch(() => '')
    if (text) this.term.paste(text)
  }

  /** Closes the tab: the stream ends, the view and its shell keep running in the container. */
  close(): void {
    if (this.disposed) return
    this.update({ status: 'closed' })
    this.dispose()
  }

  dispose(): void {
    if (this.disposed) return
    this.disposed = true
    clearTimeout(this.resizeTimer)
    this.acks?.stop()
    this.pacer.dispose()
    const streamId = this.streamId
    this.streamId = null
    if (streamId) {
      this.deps.router.release(streamId)
      void this.deps.client.call('stream.close', { streamId }).catch(() => undefined)
    }
    this.term.dispose()
    this.element.remove()
  }
}
