// Terminal tabs per session. The TerminalSession objects (xterm instances) live here, outside
// React, so leaving a session's view keeps its terminals and their output; closing a tab ends
// only the stream, never the view's shell.
import { createStore, type StoreApi } from 'zustand/vanilla'
import type { SessionState } from '../../../shared/models'
import type { Client } from '../api/client'
import { describeError, type Problem } from '../api/errors'
import { StreamRouter } from '../terminal/stream-router'
import type { TerminalSession, TerminalSnapshot } from '../terminal/terminal-session'
import type { SessionsStore } from './sessions'

export interface Tab {
  key: string
  snapshot: TerminalSnapshot
}

export interface TerminalsState {
  tabs: Record<string, Tab[]>
  active: Record<string, string | undefined>
  /** views running in the container with no tab here (closed tabs, ssh users' tmux sessions) */
  detached: Record<string, string[]>
  problem: Record<string, Problem | null>
  ensure(sessionId: string): Promise<void>
  newTab(sessionId: string, view?: string, history?: boolean): string
  closeTab(sessionId: string, key: string): void
  endView(sessionId: string, key: string): Promise<void>
  setActive(sessionId: string, key: string): void
  /** lists the session's views without a tab; at most every few seconds unless forced */
  refreshDetached(sessionId: string, force?: boolean): Promise<void>
}

export interface TerminalsRuntime {
  store: StoreApi<TerminalsState>
  session(key: string): TerminalSession | undefined
}

/** listing views runs a command in the container: not on every visit of the session's screen */
const REFRESH_EVERY_MS = 15_000

type TerminalCode = typeof import('../terminal/terminal-session')

const darkQuery = () => (typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined)

export function createTerminalsStore(client: Client, sessions: SessionsStore): TerminalsRuntime {
  const router = new StreamRouter(client)
  const live = new Map<string, TerminalSession>()
  const ensuring = new Map<string, Promise<void>>()
  const refreshedAt = new Map<string, number>()
  let counter = 0
  // xterm.js and the terminal's own code load with the first terminal, not with the page (main.tsx)
  let code: TerminalCode | undefined
  const loadCode = (): Promise<TerminalCode> => import('../terminal/terminal-session').then((m) => (code = m))

  const clipboard = {
    read: () => client.app.readClipboard?.() ?? navigator.clipboard.readText(),
    write: (text: string) => client.app.writeClipboard?.(text) ?? navigator.clipboard.writeText(text),
  }

  const store = createStore<TerminalsState>()((set, get) => {
    const setSnapshot = (sessionId: string, key: string, snapshot: TerminalSnapshot) => {
      const tabs = get().tabs[sessionId] ?? []
      if (!tabs.some((t) => t.key === key)) return
      set({ tabs: { ...get().tabs, [sessionId]: tabs.map((t) => (t.key === key ? { key, snapshot } : t)) } })
    }

    const make = (c: TerminalCode, key: string, sessionId: string, view: string | undefined): TerminalSession => {
      const t = new c.TerminalSession(
        {
          client,
          router,
          sessionId,
          sessionState: () => sessions.getState().byId[sessionId]?.state,
          theme: () => c.terminalTheme(!!darkQuery()?.matches),
          clipboard,
          onChange: (snap) => setSnapshot(sessionId, key, snap),
        },
        view,
      )
      live.set(key, t)
      set({
        tabs: { ...get().tabs, [sessionId]: [...(get().tabs[sessionId] ?? []), { key, snapshot: t.state }] },
        active: { ...get().active, [sessionId]: key },
      })
      return t
    }

    return {
      tabs: {},
      active: {},
      detached: {},
      problem: {},
      ensure(sessionId) {
        if ((get().tabs[sessionId] ?? []).length > 0) return Promise.resolve()
        const running = ensuring.get(sessionId)
        if (running) return running
        const p = (async () => {
          try {
            const [views] = await Promise.all([client.call('view.list', { id: sessionId }), loadCode()])
            if ((get().tabs[sessionId] ?? []).length > 0) return
            if (views.length === 0) get().newTab(sessionId, 'main', false)
            // reopen every view the session has: each comes back with its earlier output
            else for (const v of views) get().newTab(sessionId, v.name, true)
            set({ problem: { ...get().problem, [sessionId]: null }, detached: { ...get().detached, [sessionId]: [] } })
          } catch (e) {
            set({ problem: { ...get().problem, [sessionId]: describeError(e) } })
          } finally {
            ensuring.delete(sessionId)
          }
        })()
        ensuring.set(sessionId, p)
        return p
      },
      newTab(sessionId, view, history = true) {
        const key = `${sessionId}/${++counter}`
        const open = (c: TerminalCode) => void make(c, key, sessionId, view).attach(history && view !== undefined)
        if (code) open(code)
        else loadCode().then(open, (e: unknown) => set({ problem: { ...get().problem, [sessionId]: describeError(e) } }))
        return key
      },
      closeTab(sessionId, key) {
        const t = live.get(key)
        live.delete(key)
        const view = t?.state.view
        t?.close()
        const tabs = (get().tabs[sessionId] ?? []).filter((x) => x.key !== key)
        const active = get().active[sessionId] === key ? tabs[tabs.length - 1]?.key : get().active[sessionId]
        const detached = get().detached[sessionId] ?? []
        set({
          tabs: { ...get().tabs, [sessionId]: tabs },
          active: { ...get().active, [sessionId]: active },
          detached: { ...get().detached, [sessionId]: view && t?.state.persistent && !detached.includes(view) ? [...detached, view] : detached },
        })
      },
      async endView(sessionId, key) {
        const t = live.get(key)
        const view = t?.state.view
        get().closeTab(sessionId, key)
        if (view) await client.call('view.close', { id: sessionId, view })
        set({ detached: { ...get().detached, [sessionId]: (get().detached[sessionId] ?? []).filter((v) => v !== view) } })
      },
      setActive(sessionId, key) {
        set({ active: { ...get().active, [sessionId]: key } })
      },
      async refreshDetached(sessionId, force = false) {
        const now = Date.now()
        if (!force && now - (refreshedAt.get(sessionId) ?? 0) < REFRESH_EVERY_MS) return
        refreshedAt.set(sessionId, now)
        try {
          const views = await client.call('view.list', { id: sessionId })
          const shown = new Set((get().tabs[sessionId] ?? []).map((t) => t.snapshot.view))
          set({ detached: { ...get().detached, [sessionId]: views.map((v) => v.name).filter((n) => !shown.has(n)) } })
        } catch {
          // not running: nothing to list
        }
      },
    }
  })

  // the session's state drives reattachment; a finished session's terminals go away
  let lastStates: Record<string, SessionState> = {}
  sessions.subscribe((s) => {
    const tabs = store.getState().tabs
    const states: Record<string, SessionState> = {}
    for (const sessionId of Object.keys(tabs)) {
      const state = s.byId[sessionId]?.state
      if (!state) continue
      states[sessionId] = state
      if (lastStates[sessionId] === state) continue
      for (const tab of tabs[sessionId] ?? []) {
        const t = live.get(tab.key)
        if (!t) continue
        if (state === 'finished') store.getState().closeTab(sessionId, tab.key)
        else t.sessionChanged(state)
      }
    }
    lastStates = states
  })
  client.onReconnect(() => {
    for (const t of live.values()) t.reconnected()
  })
  darkQuery()?.addEventListener('change', (e) => {
    if (!code) return
    for (const t of live.values()) t.setTheme(code.terminalTheme(e.matches))
  })

  if (typeof window !== 'undefined') {
    ;(window as unknown as { berthDebug?: unknown }).berthDebug = {
      terminals: (opts?: { tail?: number }) => [...live].map(([key, t]) => ({ key, ...t.state, problem: t.state.problem?.message ?? null, text: t.text(opts?.tail), cols: t.term.cols, rows: t.term.rows })),
    }
  }
  return { store, session: (key: string) => live.get(key) } satisfies TerminalsRuntime
}
