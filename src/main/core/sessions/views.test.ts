import { describe, expect, it } from 'vitest'
import { attachScript, hangUpScript, nextViewName, parseViews } from './views'

describe('views', () => {
  it('reads tmux list-sessions output', () => {
    expect(parseViews('main|1|1700000000\nterm-2|0|1700000100\n\nBAD NAME|0|1\n')).toEqual([
      { name: 'main', attached: 1, createdAt: '2023-11-14T22:13:20.000Z' },
      { name: 'term-2', attached: 0, createdAt: '2023-11-14T22:15:00.000Z' },
    ])
  })

  it('names a new view after the first free name', () => {
    expect(nextViewName([])).toBe('main')
    expect(nextViewName(['main'])).toBe('term-2')
    expect(nextViewName(['main', 'term-2', 'term-4'])).toBe('term-3')
  })

  it('attaches to tmux on its own socket, without an alternate screen, history first when asked', () => {
    const plain = attachScript('main', { history: false, rows: 24 })
    expect(plain).toContain("new-session -A -s 'main'")
    expect(plain).toContain('tmux -L berth -u start-server')
    expect(plain).toContain('smcup@:rmcup@')
    expect(plain).not.toContain('capture-pane')
    const fresh = attachScript('main', { history: true, rows: 24 })
    expect(fresh).toContain("capture-pane -p -e -J -S - -E -1 -t '=main:'")
    expect(fresh).toContain('-lt 24')
  })

  it('hangs up one terminal by its mark, or every one', () => {
    expect(hangUpScript('abc')).toContain("grep -qx 'BERTH_TERMINAL=abc'")
    expect(hangUpScript()).toContain("grep -q '^BERTH_TERMINAL='")
  })
})
