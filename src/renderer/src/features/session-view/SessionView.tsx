// One session's screen: its header, its terminal tabs, the active terminal, and the side panel.
import { useCallback, useEffect, useMemo, useState } from 'react'
import { EmptyState } from '../../components/EmptyState'
import { ProblemLine } from '../../components/ProblemLine'
import { useSessions, useStores, useTerminals, useUi } from '../../stores/app-stores'
import type { ShownSession } from '../../stores/sessions'
import type { Tab } from '../../stores/terminals'
import { SessionHeader } from './SessionHeader'
import { SessionSide } from './SessionSide'
import { TerminalPane } from './TerminalPane'
import { TerminalTabs } from './TerminalTabs'
import { useTabShortcuts, useTerminalVerbs } from './use-terminal-verbs'

const NO_TABS: Tab[] = []
const NO_VIEWS: string[] = []

function Missing({ id }: { id: string }) {
  const loaded = useSessions((s) => s.loaded)
  const navigate = useUi((s) => s.navigate)
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

export function SessionView({ id }: { id: string }) {
  const stores = useStores()
  const summary = useSessions((s) => s.byId[id] ?? Object.values(s.byId).find((x) => x.name === id || x.route === id))
  const detail = useSessions((s) => (summary ? s.details[summary.id] : undefined))
  // the list's summary at once, the rest (ssh line, previews, activity, origin) once session.show answers
  const session: ShownSession | undefined = useMemo(() => (summary && detail ? { ...detail, ...summary } : summary), [summary, detail])
  const sessionId = session?.id
  useEffect(() => {
    if (sessionId) void stores.sessions.getState().show(sessionId).catch(() => undefined)
  }, [sessionId, stores])
  const tabs = useTerminals((s) => (sessionId ? (s.tabs[sessionId] ?? NO_TABS) : NO_TABS))
  const active = useTerminals((s) => (sessionId ? s.active[sessionId] : undefined))
  const detached = useTerminals((s) => (sessionId ? (s.detached[sessionId] ?? NO_VIEWS) : NO_VIEWS))
  const problem = useTerminals((s) => (sessionId ? s.problem[sessionId] : null))
  const [sideOpen, setSideOpen] = useState(false)
  const running = session?.state === 'running'
  const term = useTerminalVerbs()

  // the session's views come up as tabs once it runs
  useEffect(() => {
    if (sessionId && running) void term.ensure(sessionId)
  }, [sessionId, running, term])
  useEffect(() => {
    if (sessionId && running) void term.refreshDetached(sessionId)
  }, [sessionId, running, tabs.length, term])
  useTabShortcuts(sessionId, tabs, active, running, term)
  // after a pause or resume from a button the keyboard belongs to the terminal again
  const focusTerminal = useCallback(() => term.focus(active), [term, active])

  if (!session) return <Missing id={id} />

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
      <SessionHeader session={session} sideOpen={sideOpen} onToggleSide={() => setSideOpen(!sideOpen)} afterVerb={focusTerminal} />
      <TerminalTabs
        sessionId={session.id}
        tabs={tabs}
        active={active}
        detached={detached}
        running={running}
        term={term}
        onClose={(key) => term.closeTab(session.id, key)}
        onEnd={(key, view) => void endView(key, view)}
      />
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
