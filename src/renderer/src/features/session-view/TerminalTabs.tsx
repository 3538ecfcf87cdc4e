// The terminal tabs of a session: the tab list alone (its close and end buttons follow it: no
// control inside a control), a new tab, and the views that were closed but keep running.
import type { Tab } from '../../stores/terminals'
import type { TerminalVerbs } from './use-terminal-verbs'

export function TerminalTabs({ sessionId, tabs, active, detached, running, term, onClose, onEnd }: {
  sessionId: string
  tabs: Tab[]
  active: string | undefined
  detached: string[]
  running: boolean
  term: TerminalVerbs
  onClose(key: string): void
  onEnd(key: string, view: string | undefined): void
}) {
  const activeTab = tabs.find((t) => t.key === active)
  return (
    <div className="tabs">
      <div className="tablist" role="tablist" aria-label="terminals">
        {tabs.map((t) => (
          <button
            key={t.key}
            className="tab"
            role="tab"
            aria-selected={t.key === active}
            tabIndex={t.key === active || (!active && t === tabs[0]) ? 0 : -1}
            onClick={() => term.setActive(sessionId, t.key)}
            onKeyDown={(e) => {
              const i = tabs.indexOf(t)
              // the tab pattern's keys: the arrows go round, Home and End to the first and the last
              const to = e.key === 'ArrowRight' ? i + 1 : e.key === 'ArrowLeft' ? i - 1 : e.key === 'Home' ? 0 : e.key === 'End' ? tabs.length - 1 : null
              if (to === null || tabs.length < 2) return
              e.preventDefault()
              const next = tabs[(to + tabs.length) % tabs.length]!
              term.setActive(sessionId, next.key)
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
        <button className="x" aria-label={`close tab ${activeTab.snapshot.view ?? ''}`} title="Close the tab; the view keeps running (Alt+Shift+W)" onClick={() => onClose(activeTab.key)}>
          ×
        </button>
      )}
      {activeTab?.snapshot.persistent && (
        <button className="x" aria-label={`end view ${activeTab.snapshot.view ?? ''}`} title="End this view and its shell" onClick={() => onEnd(activeTab.key, activeTab.snapshot.view)}>
          end
        </button>
      )}
      <button className="small" onClick={() => running && term.newTab(sessionId)} disabled={!running} title="New terminal (Alt+Shift+T)" aria-label="new terminal">
        +
      </button>
      {detached.length > 0 && (
        <select
          className="small"
          aria-label="reopen a view"
          value=""
          onChange={(e) => {
            if (e.target.value) term.newTab(sessionId, e.target.value, true)
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
  )
}
