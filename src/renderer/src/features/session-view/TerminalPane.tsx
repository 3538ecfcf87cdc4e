import { useEffect, useRef } from 'react'
import { useStores, useTerminals } from '../../stores/app-stores'
import type { TerminalSnapshot } from '../../terminal/terminal-session'

function overlayText(s: TerminalSnapshot, sessionState: string | undefined): string | null {
  switch (s.status) {
    case 'connecting':
      return 'Attaching…'
    case 'waiting':
      return sessionState === 'paused'
        ? 'The session is paused: this terminal reattaches by itself when it resumes.'
        : `The session is ${sessionState ?? 'not running'}: this terminal reattaches when it runs again.`
    case 'ended':
      return 'The shell in this view ended. Press Enter to start a new one.'
    case 'error':
      return s.problem?.message ?? 'The terminal could not attach.'
    default:
      return null
  }
}

/** Shows the active tab's terminal; the xterm instance itself lives in the terminals store. */
export function TerminalPane({ sessionId, tabKey, sessionState }: { sessionId: string; tabKey: string; sessionState: string | undefined }) {
  const { terminals } = useStores()
  const slot = useRef<HTMLDivElement>(null)
  const snapshot = useTerminals((s) => s.tabs[sessionId]?.find((t) => t.key === tabKey)?.snapshot)

  useEffect(() => {
    const t = terminals.session(tabKey)
    const el = slot.current
    if (!t || !el) return
    t.mount(el)
    t.focus()
    const ro = new ResizeObserver(() => t.fitNow())
    ro.observe(el)
    return () => ro.disconnect()
  }, [terminals, tabKey])

  const overlay = snapshot ? overlayText(snapshot, sessionState) : null
  return (
    <div className="terminal-pane" data-terminal={tabKey} data-status={snapshot?.status} data-renderer={snapshot?.renderer}>
      <div className="terminal-slot" ref={slot} />
      {overlay && (
        <div className="terminal-overlay" role="status">
          <span>{overlay}</span>
          {snapshot?.status === 'error' && (
            <button className="small" onClick={() => void terminals.session(tabKey)?.attach(false)}>
              Try again
            </button>
          )}
          {snapshot?.status === 'ended' && (
            <button className="small" onClick={() => terminals.session(tabKey)?.restart()}>
              New shell
            </button>
          )}
        </div>
      )}
    </div>
  )
}
