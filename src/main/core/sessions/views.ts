// Views: a terminal shows a tmux session inside the container, so closing a tab never kills the
// shell, and after a pause/resume or a move the terminal reattaches to the same tmux session
// (which CRIU restored with its scrollback). Each open terminal is one tty exec running a tmux
// client; the tmux server lives in the container on its own socket (-L berth).
import { BerthError, toErrorBody } from '../../../shared/errors'
import type { View, ViewOpened } from '../../../shared/contract'
import type { CoreBus } from '../bus'
import type { EngineRegistry } from '../engines/engine-registry'
import type { SessionRow } from '../store/sessions-repo'
import type { StreamHub, StreamOwner } from '../streams/stream-hub'
import { startExec, type ExecHandle } from './exec'
import { startRelayedTerminal } from './pty-relay'
import { remoteOf } from './session-shape'
import type { SessionService } from './session-service'

export const TMUX_SOCKET = 'berth'
/** tmux drawn into xterm.js: no status bar (the app has tabs), real scrollback in the terminal. */
const TMUX_OPTIONS = [
  // the first client's mark must not reach the shells the tmux server starts
  'set-environment -g -u BERTH_TERMINAL',
  'set-option -g status off',
  'set-option -g history-limit 50000',
  // no alternate screen: lines that scroll off land in the terminal's own scrollback
  'set-option -ga terminal-overrides ",xterm*:smcup@:rmcup@"',
  'set-option -s escape-time 0',
  'set-option -g default-terminal screen-256color',
  'set-option -g set-clipboard off',
]
const ACTIVITY_EVERY_MS = 1000
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
/** marks a terminal's process inside the container (its tmux client, or a plain shell) */
const TERMINAL_ENV = 'BERTH_TERMINAL'

/**
 * Docker keeps a tty exec running when its client hangs up, so a closed terminal must end its own
 * process: SIGHUP to the process carrying its mark (a tmux client detaches on SIGHUP; the view
 * stays). Without an id, every terminal process of the container (a sweep after a crash).
 */
export function hangUpScript(terminalId?: string): string {
  const match = terminalId ? `-qx ${q(`${TERMINAL_ENV}=${terminalId}`)}` : `-q '^${TERMINAL_ENV}='`
  return `for p in /proc/[0-9]*; do tr '\\0' '\\n' < "$p/environ" 2>/dev/null | grep ${match} && kill -HUP "\${p#/proc/}" 2>/dev/null; done; true`
}

/** The shell script one terminal runs: earlier output first when asked, then attach or create. */
export function attachScript(view: string, opts: { history: boolean; rows: number }): string {
  const tmux = `tmux -L ${TMUX_SOCKET} -u`
  const lines = [
    'command -v tmux >/dev/null 2>&1 || exec /bin/sh -c \'echo "berth: this image has no tmux, so this terminal is a plain shell that ends with its tab" >&2; if command -v bash >/dev/null 2>&1; then exec bash -l; else exec sh -l; fi\'',
  ]
  if (opts.history) {
    // the view's history (not its visible screen, which tmux redraws), then enough newlines to
    // push it into the terminal's scrollback before tmux paints the screen
    lines.push(
      `if ${tmux} has-session -t ${q('=' + view)} 2>/dev/null; then ${tmux} capture-pane -p -e -J -S - -E -1 -t ${q('=' + view + ':')} 2>/dev/null; i=0; while [ $i -lt ${opts.rows} ]; do echo; i=$((i+1)); done; fi`,
    )
  }
  lines.push(`exec ${tmux} start-server \\; ${TMUX_OPTIONS.join(' \\; ')} \\; new-session -A -s ${q(view)}`)
  return lines.join('\n')
}

export class ViewService {
  /** what a container has for terminals (tmux keeps views; perl runs the pty relay), asked once per container */
  private readonly tools = new Map<string, { tmux: boolean; perl: boolean }>()

  constructor(
    private readonly sessions: SessionService,
    private readonly engines: EngineRegistry,
    private readonly hub: StreamHub,
    private readonly bus: CoreBus,
  ) {}

  private running(ref: string, verb: string): SessionRow & { containerId: string } {
    const row = this.sessions.resolve(ref)
    if (row.state === 'finished') throw new BerthError('refused', `session ${row.name} finished`)
    if (row.state !== 'running' || !row.containerId) {
      throw new BerthError('conflict', `session ${row.name} is ${row.state}: resume it to ${verb}`, { state: row.state })
    }
    return row as SessionRow & { containerId: string }
  }

  /** Runs a short command in the container and returns its output. */
  private async run(row: SessionRow & { containerId: string }, script: string): Promise<{ code: number | null; out: string }> {
    const engine = this.engines.get(row.server)
    await engine.ready()
    const chunks: Buffer[] = []
    // as the session's user: its tmux server is that user's (a devcontainer's remoteUser)
    const h = await startExec(engine.docker, row.containerId, { cmd: ['/bin/sh', '-c', script], user: remoteOf(row).user }, (_fd, d) => chunks.push(d))
    const { code } = await h.exit
    return { code, out: Buffer.concat(chunks).toString('utf8') }
  }

  async list(ref: string): Promise<View[]> {
    const row = this.running(ref, 'list its views')
    const r = await this.run(
      row,
      `command -v tmux >/dev/null 2>&1 || exit 0; tmux -L ${TMUX_SOCKET} list-sessions -F '#{session_name}|#{session_attached}|#{session_created}' 2>/dev/null || true`,
    )
    return parseViews(r.out)
  }

  async openView(ref: string, args: { view?: string | undefined; cols: number; rows: number; history?: boolean | undefined }, owner: StreamOwner): Promise<ViewOpened> {
    const row = this.running(ref, 'open a terminal')
    const engine = this.engines.get(row.server)
    await engine.ready()
    const view = args.view ?? nextViewName((await this.list(row.id)).map((v) => v.name))
    let tools = this.tools.get(row.containerId)
    if (!tools) {
      const probe = await this.run(row, 'command -v tmux >/dev/null 2>&1 && echo tmux; command -v perl >/dev/null 2>&1 && [ -c /dev/ptmx ] && echo perl; true')
      tools = { tmux: /\btmux\b/.test(probe.out), perl: /\bperl\b/.test(probe.out) }
      this.tools.set(row.containerId, tools)
    }
    // known as the session's terminal: a pause detaches it (hub.closeSession), its input is activity
    const streamId = this.hub.create(owner, { sessionId: row.id, terminal: true })
    let handle: ExecHandle
    try {
      const cmd = ['/bin/sh', '-c', attachScript(view, { history: !!args.history, rows: args.rows })]
      const remote = remoteOf(row)
      const env = { ...remote.env, TERM: 'xterm-256color', COLORTERM: 'truecolor', LANG: 'C.UTF-8', [TERMINAL_ENV]: streamId }
      const onData = (fd: 1 | 2, d: Buffer) => this.hub.data(streamId, fd, d)
      handle = tools.perl
        ? await startRelayedTerminal(engine.docker, row.containerId, { cmd, env, cols: args.cols, rows: args.rows, user: remote.user }, onData)
        : await startExec(engine.docker, row.containerId, { cmd, tty: true, stdin: true, cols: args.cols, rows: args.rows, env, user: remote.user }, onData)
    } catch (e) {
      this.hub.exit(streamId, null, toErrorBody(e))
      throw e
    }
    let lastSignal = 0
    const sessionId = row.id
    this.hub.attach(streamId, {
      ...handle,
      close: () => {
        handle.close()
        // the relay hangs up its pty when its stdin closes; a Docker tty keeps running: end it.
        // Only while the session runs: a pause ends exec processes itself.
        if (!tools.perl && this.sessions.resolve(sessionId).state === 'running') void this.hangUp(row, streamId)
      },
      write: (data) => {
        const now = Date.now()
        if (now - lastSignal >= ACTIVITY_EVERY_MS) {
          lastSignal = now
          this.bus.signal('activity', { sessionId, signal: 'terminal' })
        }
        handle.write(data)
      },
    })
    this.bus.signal('activity', { sessionId, signal: 'terminal' })
    void handle.exit.then(({ code, dropped }) => {
      // a dropped connection leaves the view running: the terminal reattaches
      if (dropped) this.hub.exit(streamId, null, { code: 'unreachable', message: `the connection to server ${row.server} dropped` })
      else this.hub.exit(streamId, code)
    })
    return { streamId, view, persistent: tools.tmux }
  }

  async closeView(ref: string, view: string): Promise<{ closed: boolean }> {
    const row = this.running(ref, 'close a view')
    const r = await this.run(row, `command -v tmux >/dev/null 2>&1 || exit 1; tmux -L ${TMUX_SOCKET} kill-session -t ${q('=' + view)} 2>/dev/null`)
    return { closed: r.code === 0 }
  }

  /** Ends one terminal's process in the container, or all of them. */
  async hangUp(row: SessionRow, terminalId?: string): Promise<void> {
    if (!row.containerId) return
    await this.run(row as SessionRow & { containerId: string }, hangUpScript(terminalId)).catch(() => undefined)
  }

  /** After a crash, terminals nobody reads may still run in containers: end them. */
  async sweep(rows: SessionRow[]): Promise<void> {
    for (const row of rows) if (row.state === 'running' && this.hub.countOfSession(row.id) === 0) await this.hangUp(row)
  }
}

export function parseViews(out: string): View[] {
  const views: View[] = []
  for (const line of out.split('\n')) {
    const [name, attached, created] = line.trim().split('|')
    if (!name || !/^[a-z0-9][a-z0-9-]*$/.test(name)) continue
    const secs = Number(created)
    views.push({ name, attached: Number(attached) || 0, createdAt: Number.isFinite(secs) && secs > 0 ? new Date(secs * 1000).toISOString() : null })
  }
  return views.sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.name.localeCompare(b.name))
}

/** main, then term-2, term-3...: the first name not taken. */
export function nextViewName(taken: string[]): string {
  if (!taken.includes('main')) return 'main'
  for (let i = 2; ; i++) if (!taken.includes(`term-${i}`)) return `term-${i}`
}
