// The terminals store's verbs for one view, read at call time (getState() changes with every update),
// and the keyboard shortcuts that drive them.
import { useEffect, useMemo } from 'react'
import { useStores } from '../../stores/app-stores'
import type { Tab } from '../../stores/terminals'

export interface TerminalVerbs {
  ensure(id: string): Promise<void> | void
  refreshDetached(id: string): Promise<void> | void
  newTab(id: string, view?: string, history?: boolean): unknown
  closeTab(id: string, key: string): unknown
  endView(id: string, key: string): Promise<unknown>
  setActive(id: string, key: string): void
  /** the keyboard goes back to the active terminal (after a verb from a button) */
  focus(key: string | undefined): void
}

export function useTerminalVerbs(): TerminalVerbs {
  const stores = useStores()
  const termStore = stores.terminals.store
  return useMemo(() => {
    const a = () => termStore.getState()
    return {
      ensure: (id) => a().ensure(id),
      refreshDetached: (id) => a().refreshDetached(id),
      newTab: (id, view, history) => a().newTab(id, view, history),
      closeTab: (id, key) => a().closeTab(id, key),
      endView: (id, key) => a().endView(id, key),
      setActive: (id, key) => a().setActive(id, key),
      focus: (key) => {
        if (key) stores.terminals.session(key)?.focus()
      },
    }
  }, [termStore, stores])
}

/**
 * Alt+Shift+T a new tab, Alt+Shift+W closes one, Alt+Shift+] and [ (or PageDown, PageUp) go round.
 * In a browser tab Ctrl+Shift+T and W belong to the browser; Ctrl+Shift still works where it reaches the page.
 */
export function useTabShortcuts(sessionId: string | undefined, tabs: Tab[], active: string | undefined, running: boolean, term: TerminalVerbs): void {
  useEffect(() => {
    if (!sessionId) return
    const onKey = (e: KeyboardEvent) => {
      const alt = e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey
      const ctrl = e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey
      if (!alt && !ctrl) return
      const k = e.code === 'KeyT' ? 't' : e.code === 'KeyW' ? 'w' : e.code === 'BracketRight' ? ']' : e.code === 'BracketLeft' ? '[' : e.key.toLowerCase()
      const i = tabs.findIndex((t) => t.key === active)
      if (k === 't') {
        e.preventDefault()
        if (running) term.newTab(sessionId)
      } else if (k === 'w' && active) {
        e.preventDefault()
        term.closeTab(sessionId, active)
      } else if ((e.key === 'PageDown' || k === ']' || e.key === '}') && tabs.length > 1) {
        e.preventDefault()
        term.setActive(sessionId, tabs[(i + 1) % tabs.length]!.key)
      } else if ((e.key === 'PageUp' || k === '[' || e.key === '{') && tabs.length > 1) {
        e.preventDefault()
        term.setActive(sessionId, tabs[(i - 1 + tabs.length) % tabs.length]!.key)
      }
    }
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [sessionId, tabs, active, running, term])
}
