// What the screen shows around the data: the route, notices, the open dialog, confirmations.
import { createStore } from 'zustand/vanilla'
import { describeError, type Problem } from '../api/errors'
import { parseRoute, routeHash, type Route } from '../lib/router'
import type { Progress } from '../../../shared/models'

export interface Notice {
  id: number
  kind: 'error' | 'info'
  message: string
  action?: Problem['action']
  retry?: () => void
}

export interface ConfirmRequest {
  title: string
  body: string
  confirmLabel: string
  danger?: boolean
  /** the user must type this to confirm (a session's name before losing unsaved work) */
  typeToConfirm?: string
}

export interface PromptField {
  name: string
  label: string
  hint?: string
  placeholder?: string
  initial?: string
  type?: 'text' | 'number'
  /** one sentence when the value is not acceptable */
  check?(value: string): string | null
}

/** What long work tells its dialog meanwhile: the core's progress, or a sentence of its own. */
export type WorkNote = Progress | string

export interface PromptRequest {
  title: string
  body?: string
  fields: PromptField[]
  confirmLabel: string
  /**
   * Work done with the dialog still open, its progress shown in place: the dialog closes when it
   * succeeds, and says what went wrong (keeping the values) when it fails.
   */
  work?(values: Record<string, string>, note: (n: WorkNote) => void): Promise<void>
}

export type Dialog = 'new-session' | 'add-server' | 'shortcuts' | null

export interface UiState {
  route: Route
  notices: Notice[]
  confirm: (ConfirmRequest & { resolve(ok: boolean): void }) | null
  prompt: (PromptRequest & { resolve(values: Record<string, string> | null): void }) | null
  dialog: Dialog
  /** the link to the core (false while a browser tab reconnects) */
  connected: boolean
  navigate(r: Route): void
  syncFromLocation(): void
  info(message: string): void
  fail(e: unknown, retry?: () => void): void
  dismiss(id: number): void
  ask(req: ConfirmRequest): Promise<boolean>
  answer(ok: boolean): void
  askFor(req: PromptRequest): Promise<Record<string, string> | null>
  reply(values: Record<string, string> | null): void
  openDialog(d: Dialog): void
}

export function createUiStore(win: Pick<Window, 'location' | 'addEventListener'> | undefined = typeof window === 'undefined' ? undefined : window) {
  let nextId = 1
  const store = createStore<UiState>()((set, get) => ({
    route: win ? parseRoute(win.location.hash) : { screen: 'sessions' },
    notices: [],
    confirm: null,
    prompt: null,
    dialog: null,
    connected: true,
    navigate(r) {
      const hash = routeHash(r)
      if (win && win.location.hash !== hash) win.location.hash = hash
      set({ route: r })
    },
    syncFromLocation() {
      if (win) set({ route: parseRoute(win.location.hash) })
    },
    info(message) {
      const id = nextId++
      set({ notices: [...get().notices, { id, kind: 'info', message }] })
      setTimeout(() => get().dismiss(id), 5000)
    },
    fail(e, retry) {
      const p = describeError(e)
      const id = nextId++
      const notice: Notice = { id, kind: 'error', message: p.message }
      if (p.action) notice.action = p.action
      if (retry) notice.retry = retry
      // the same sentence twice in a row is one notice
      set({ notices: [...get().notices.filter((n) => n.message !== p.message), notice].slice(-4) })
    },
    dismiss(id) {
      set({ notices: get().notices.filter((n) => n.id !== id) })
    },
    ask(req) {
      get().confirm?.resolve(false)
      return new Promise<boolean>((resolve) => set({ confirm: { ...req, resolve } }))
    },
    answer(ok) {
      const c = get().confirm
      set({ confirm: null })
      c?.resolve(ok)
    },
    askFor(req) {
      get().prompt?.resolve(null)
      return new Promise((resolve) => set({ prompt: { ...req, resolve } }))
    },
    reply(values) {
      const p = get().prompt
      set({ prompt: null })
      p?.resolve(values)
    },
    openDialog(d) {
      set({ dialog: d })
    },
  }))
  win?.addEventListener('hashchange', () => store.getState().syncFromLocation())
  return store
}
export type UiStore = ReturnType<typeof createUiStore>

/** A verb that needs a yes first: on a yes it runs, and the notice says what it did or why it failed. */
export async function askThenRun(ui: UiStore, question: ConfirmRequest, run: () => Promise<string>): Promise<void> {
  if (!(await ui.getState().ask(question))) return
  try {
    ui.getState().info(await run())
  } catch (e) {
    ui.getState().fail(e)
  }
}
