// In a flood, xterm.js draws every animation frame, and on this kind of machine drawing took as long
// as parsing (bench/ui): half the page's time went to frames nobody reads. While output floods in
// (more than FLOOD_BYTES written and not yet parsed), the terminal holds its drawing with
// synchronized output (DEC mode 2026, which xterm.js implements) and lets one frame through about
// every PACE_MS. A keystroke's echo arrives with nothing left to parse, so it draws at once.
const HOLD = '\x1b[?2026h'
const RELEASE = '\x1b[?2026l'
export const PACE_MS = 50
export const FLOOD_BYTES = 64 * 1024

/** What the pacer needs of an xterm.js Terminal. */
export interface PacedTerminal {
  write(data: string, callback?: () => void): void
  onRender(listener: () => void): { dispose(): void }
  readonly modes: { readonly synchronizedOutputMode: boolean }
}

type State = 'free' | 'holding' | 'releasing' | 'released'

export class FramePacer {
  private state: State = 'free'
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly rendered: { dispose(): void }

  constructor(
    private readonly term: PacedTerminal,
    /** bytes written to the terminal and not yet parsed */
    private readonly backlog: () => number,
    private readonly paceMs = PACE_MS,
  ) {
    // the next hold waits until the frame the release let through was drawn: a hold parsed before
    // that frame would skip it
    this.rendered = term.onRender(() => {
      if (this.state === 'released') this.state = 'free'
    })
  }

  /** Called before output is written to the terminal. */
  beforeWrite(): void {
    if (this.state !== 'free' || this.backlog() < FLOOD_BYTES) return
    // a program that holds the drawing itself (tmux, an editor) keeps it
    if (this.term.modes.synchronizedOutputMode) return
    this.term.write(HOLD)
    this.state = 'holding'
    this.timer = setTimeout(() => this.release(), this.paceMs)
  }

  private release(): void {
    this.timer = undefined
    this.state = 'releasing'
    this.term.write(RELEASE, () => {
      if (this.state === 'releasing') this.state = 'released'
    })
  }

  dispose(): void {
    clearTimeout(this.timer)
    this.rendered.dispose()
  }
}
