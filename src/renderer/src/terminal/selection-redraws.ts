// xterm.js asks its renderer to redraw the selection on every scroll, selection or not, and the
// DOM renderer answers by rebuilding every row (xtermjs/xterm.js#4633, open). During a flood that
// is a second full render per frame, for nothing: here a change from no selection to no selection
// is dropped before it reaches the renderer. A real selection, and clearing one, still redraw.
import type { Terminal } from '@xterm/xterm'

type Point = [number, number] | undefined
interface RenderService {
  handleSelectionChanged(start: Point, end: Point, columnSelectMode: boolean): void
}

const selects = (start: Point, end: Point) => !!start && !!end && (start[0] !== end[0] || start[1] !== end[1])

/** Returns whether xterm's internals were where this expects them (a new xterm.js may move them). */
export function skipEmptySelectionRedraws(term: Terminal): boolean {
  const render = (term as unknown as { _core?: { _renderService?: RenderService } })._core?._renderService
  if (!render || typeof render.handleSelectionChanged !== 'function') return false
  const redraw = render.handleSelectionChanged.bind(render)
  let shown = true // until the first call, assume something may be drawn
  render.handleSelectionChanged = (start, end, columnSelectMode) => {
    const now = selects(start, end)
    if (!now && !shown) return
    shown = now
    redraw(start, end, columnSelectMode)
  }
  return true
}
