import { Terminal } from '@xterm/xterm'
import { describe, expect, it, vi } from 'vitest'
import { skipEmptySelectionRedraws } from './selection-redraws'

describe('selection redraws in the DOM renderer', () => {
  it('skips a redraw from no selection to no selection, and keeps the ones that show or clear a selection', () => {
    const host = document.createElement('div')
    document.body.appendChild(host)
    const term = new Terminal({ cols: 40, rows: 10 })
    term.open(host)
    const render = (term as unknown as { _core: { _renderService: { _renderer: { value: { handleSelectionChanged(...a: unknown[]): void } } } } })._core._renderService
    const renderer = render._renderer.value
    const redraws = vi.spyOn(renderer, 'handleSelectionChanged')
    // the patch finds xterm's internals (a new xterm.js that moves them fails here, not silently)
    expect(skipEmptySelectionRedraws(term)).toBe(true)
    const changed = (start?: [number, number], end?: [number, number]) =>
      (render as unknown as { handleSelectionChanged(s: unknown, e: unknown, c: boolean): void }).handleSelectionChanged(start, end, false)
    changed() // the first one passes: something may be drawn
    changed()
    changed([3, 1], [3, 1]) // a click: no selection yet
    expect(redraws).toHaveBeenCalledTimes(1)
    changed([0, 1], [5, 1])
    changed([0, 1], [7, 1])
    changed()
    changed()
    expect(redraws).toHaveBeenCalledTimes(4)
    term.dispose()
    host.remove()
  })
})
