import { useCallback, useEffect, useMemo, useState } from 'react'
import { CopyLine } from '../../components/CopyLine'
import { EmptyState } from '../../components/EmptyState'
import { ProblemLine } from '../../components/ProblemLine'
import { ProgressBar } from '../../components/ProgressBar'
import { StateBadge } from '../../components/StateBadge'
import { age, imageLabel, meterLine } from '../../lib/format'
import { useNow } from '../../lib/hooks'
import { useServers, useSessions, useStores, useTerminals, useUi, useWorkspace } from '../../stores/app-stores'
import type { ShownSession } from '../../stores/sessions'
import type { Tab } from '../../stores/terminals'
import { sessionActions } from '../sessions/session-actions'
import { Menu } from '../../components/Menu'
import { SessionSide } from './SessionSide'
import { TerminalPane } from './TerminalPane'

const NO_TABS: Tab[] = []
const NO_VIEWS: string[] = []

function Facts({ s }: { s: ShownSession }) {
  const now = useNow()
  const unsaved = useWorkspace((w) => (s.workspace && w.byId[s.id]?.status ? !w.byId[s.id]!.status!.saved : false))
  return (
    <div className="facts">
      <span>
        on <strong>{s.server}</strong>
      </span>
      <span className="mono" title={s.image}>
        {imageLabel(s.image)}
      </span>
      <span title={s.createdAt}>{age(s.createdAt, now)} old</span>
      <span>route {s.route}</span>
      {s.meter && <span>{meterLine(s.meter, s.state)}</span>}
      {unsaved && <span className="unsaved">● unsaved work</span>}
      {s.activity && s.state === 'running' && <span title="what keeps the session from pausing itself">{s.activity.status}</span>}
    </div>
  )
}

export function SessionView({ id }: { id: string }) {
  const stores = useStores()
  const summary = useSessions((s) => s.byId[id] ?? Object.values(s.byId).find((x) => x.name === id || x.route === id))
  const detail = useSessions((s) => (summary ? s.details[summary.id] : undefined))
  // the list's summary at once, the rest (ssh line, previews, activity, origin) once session.show answers
  const session: ShownSession | undefined = useMemo(() => (summary && detail ? { ...detail, ...summary } : summary), [summary, detail])
  const loaded = useSessions((s) => s.loaded)
  const progress = useSessions((s) => (session ? s.progress[session.id] : undefined))
  const sessionId = session?.id
  useEffect(() => {
    if (sessionId) void stores.sessions.getState().show(sessionId).catch(() => undefined)
  }, [sessionId, stores])
  const tabs = useTerminals((s) => (sessionId ? (s.tabs[sessionId] ?? NO_TABS) : NO_TABS))
  const active = useTerminals((s) => (sessionId ? s.active[sessionId] : undefined))
  const detached = useTerminals((s) => (sessionId ? (s.detached[sessionId] ?? NO_VIEWS) : NO_VIEWS))
  const problem = useTerminals((s) => (sessionId ? s.problem[sessionId] : null))
  const [sideOpen, setSideOpen] = useState(false)
  const navigate = useUi((s) => s.navigate)
  const servers = useServers((s) => s.list)
  const running = session?.state === 'running'
  // the store's actions, read at call time (getState() changes with every update)
  const termStore = stores.terminals.store
  const term = useMemo(() => {
    const a = () => termStore.getState()
    return {
      ensure: (id: string) => a().ensure(id),
      refreshDetached: (id: string) => a().refreshDetached(id),
      newTab: (id: string, view?: string, history?: boolean) => a().newTab(id, view, history),
      closeTab: (id: string, key: string) => a().closeTab(id, key),
      endView: (id: string, key: string) => a().endView(id, key),
      setActive: (id: string, key: string) => a().setActive(id, key),
    }
  }, [termStore])

  // the session's views come up as tabs once it runs
  useEffect(() => {
    if (sessionId && running) void term.ensure(sessionId)
  }, [sessionId, running, term])
  useEffect(() => {
    if (sessionId && running) void term.refreshDetached(sessionId)
  }, [sessionId, running, tabs.length, term])

  const newTab = useCallback(() => sessionId && running && term.newTab(sessionId), [sessionId, running, term])
  const closeTab = useCallback((key: string) => sessionId && term.closeTab(sessionId, key), [sessionId, term])

  useEffect(() => {
    if (!sessionId) return
    const onKey = (e: KeyboardEvent) => {
      // Alt+Shift: in a browser tab Ctrl+Shift+T and W belong to the browser
      // (Ctrl+Shift still works where it reaches the page)
      const alt = e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey
      const ctrl = e.ctrlKey && e.shiftKey && !e.altKey && !e.metaKey
      if (!alt && !ctrl) return
      const k = e.code === 'KeyT' ? 't' : e.code === 'KeyW' ? 'w' : e.code === 'BracketRight' ? ']' : e.code === 'BracketLeft' ? '[' : e.key.toLowerCase()
      const i = tabs.findIndex((t) => t.key === active)
      if (k === 't') {
        e.preventDefault()
        newTab()
      } else if (k === 'w' && active) {
        e.preventDefault()
        closeTab(active)
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
  }, [sessionId, tabs, active, newTab, closeTab, term])

  if (!session) {
    return loaded ? (
      <section className="screen">
        <EmptyState title="This session does not exist" action={<button onClick={() => navigate({ screen: 'sessions' })}>Back to sessions</button>}>
          No session has the id or name {id}; it may belong to another Berth home.
        </EmptyState>
      </section>
    ) : (
      <section className="screen">
        <p className="muted">Loading…</p>
      </section>
    )
  }

  const verbs = sessionActions(stores, session, servers)
  const activeTab = tabs.find((t) => t.key === active)
  const endView = async (key: string, view: string | undefined) => {
    const ok = await stores.ui.getState().ask({
      title: `End the view ${view ?? ''}?`,
      body: 'The shell in it and everything running there stops. Closing the tab instead keeps it running.',
      confirmLabel: 'End view',
      danger: true,
    })
    if (ok) await term.endView(session.id, key).catch((e: unknown) => stores.ui.getState().fail(e))
  }

  return (
    <section className="session-view" aria-label={`session ${session.name}`}>
      <header className="session-head">
        <h1>{session.name}</h1>
        <StateBadge session={session} />
        {progress && <ProgressBar progress={progress} />}
        <Facts s={session} />
        {session.sshLine && <CopyLine text={session.sshLine} label="ssh line" />}
        <div className="actions">
          {verbs.primary && (
            <button className="primary" onClick={verbs.primary.run}>
              {verbs.primary.label}
            </button>
          )}
          <Menu label={`more for ${session.name}`} items={verbs.more} />
          <button className="side-toggle" aria-expanded={sideOpen} aria-controls="session-side" onClick={() => setSideOpen(!sideOpen)}>
            Details
          </button>
        </div>
        {session.origin && (
          <div className="origin">
            {session.origin.verb === 'create' ? 'Started' : `Made by ${session.origin.verb}`}
            {session.origin.snapshot ? ` from snapshot ${session.origin.snapshot}` : ''}: {session.origin.memory ? 'its processes continued from memory' : `booted from disk${session.origin.note ? ` (${session.origin.note})` : ''}`}.
          </div>
        )}
        {session.state === 'failed' && session.failure && <div className="failure" style={{ flexBasis: '100%' }}>{session.failure}</div>}
      </header>
      <div className="tabs">
        {/* the tabs alone in the tab list: their close and end buttons follow it (no control inside a control) */}
        <div className="tablist" role="tablist" aria-label="terminals">
          {tabs.map((t) => (
            <button
              key={t.key}
              className="tab"
              role="tab"
              aria-selected={t.key === active}
              tabIndex={t.key === active || (!active && t === tabs[0]) ? 0 : -1}
              onClick={() => term.setActive(session.id, t.key)}
              onKeyDown={(e) => {
                const i = tabs.indexOf(t)
                const to = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : null
                if (to === null || tabs.length < 2) return
                e.preventDefault()
                const next = tabs[(to + tabs.length) % tabs.length]!
                term.setActive(session.id, next.key)
                ;(e.currentTarget.parentElement?.querySelector(`[data-key="${CSS.escape(next.key)}"]`) as HTMLElement | null)?.focus()
              }}
              data-view={t.snapshot.view}
              data-key={t.key}
            >
              <span className={`dot ${t.snapshot.status}`} title={t.snapshot.status} />
              {t.snapshot.view ?? 'new'}
              {!t.snapshot.persistent && <span className="muted" title="this image has no tmux: the shell ends with the tab">(plain)</span>}
            </button>
          ))}
        </div>
        {activeTab && (
          <button className="x" aria-label={`close tab ${activeTab.snapshot.view ?? ''}`} title="Close the tab; the view keeps running (Alt+Shift+W)" onClick={() => closeTab(activeTab.key)}>
            ×
          </button>
        )}
        {activeTab?.snapshot.persistent && (
          <button className="x" aria-label={`end view ${activeTab.snapshot.view ?? ''}`} title="End this view and its shell" onClick={() => void endView(activeTab.key, activeTab.snapshot.view)}>
            end
          </button>
        )}
        <button className="small" onClick={newTab} disabled={!running} title="New terminal (Alt+Shift+T)" aria-label="new terminal">
          +
        </button>
        {detached.length > 0 && (
          <select
            className="small"
            aria-label="reopen a view"
            value=""
            onChange={(e) => {
              if (e.target.value) term.newTab(session.id, e.target.value, true)
            }}
          >
            <option value="">Reopen a view ({detached.length})</option>
            {detached.map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        )}
      </div>
      <div className={`session-body${sideOpen ? ' side-open' : ''}`}>
        <div className="terminals">
          {problem ? <ProblemLine problem={problem} /> : <div />}
          {active ? (
            <TerminalPane key={active} sessionId={session.id} tabKey={active} sessionState={session.state} />
          ) : (
            <EmptyState title={running ? 'No terminal open' : `The session is ${session.state}`}>
              {running
                ? 'Open a terminal with + (Alt+Shift+T); views you closed keep running and can be reopened.'
                : session.state === 'finished'
                  ? 'A finished session keeps its history; start a new session to work again.'
                  : 'Its terminals come back by themselves once it runs again.'}
            </EmptyState>
          )}
        </div>
        <SessionSide session={session} id="session-side" />
      </div>
    </section>
  )
}
