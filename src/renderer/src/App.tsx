import { useEffect } from 'react'
import { ConfirmDialog } from './components/ConfirmDialog'
import { Notices } from './components/Notices'
import { PromptDialog } from './components/PromptDialog'
import { ShortcutsDialog } from './components/ShortcutsDialog'
import { AddServerDialog } from './features/servers/AddServerDialog'
import { ServersScreen } from './features/servers/ServersScreen'
import { SessionView } from './features/session-view/SessionView'
import { NewSessionDialog } from './features/sessions/NewSessionDialog'
import { SessionsScreen } from './features/sessions/SessionsScreen'
import { SettingsScreen } from './features/settings/SettingsScreen'
import { SnapshotsScreen } from './features/snapshots/SnapshotsScreen'
import { typingIn } from './lib/hooks'
import type { Route } from './lib/router'
import { StoresContext, useSessions, useStores, useUi, type AppStores } from './stores/app-stores'

const NAV: Array<{ route: Route; label: string; key: string }> = [
  { route: { screen: 'sessions' }, label: 'Sessions', key: '1' },
  { route: { screen: 'snapshots' }, label: 'Snapshots', key: '2' },
  { route: { screen: 'servers' }, label: 'Servers', key: '3' },
  { route: { screen: 'settings' }, label: 'Settings', key: '4' },
]

function Nav() {
  const stores = useStores()
  const route = useUi((s) => s.route)
  const navigate = useUi((s) => s.navigate)
  const connected = useUi((s) => s.connected)
  const running = useSessions((s) => Object.values(s.byId).filter((x) => x.state === 'running').length)
  const current = route.screen === 'session' ? 'sessions' : route.screen
  return (
    <nav className="nav" aria-label="screens">
      <div className="brand">Berth</div>
      {NAV.map((n) => (
        <a
          key={n.key}
          href={`#/${n.route.screen}`}
          aria-current={current === n.route.screen ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault()
            navigate(n.route)
          }}
        >
          <span>
            {n.label}
            {n.route.screen === 'sessions' && running > 0 ? <span className="muted"> · {running}</span> : null}
          </span>
          <kbd aria-label={`Alt Shift ${n.key}`}>⌥⇧{n.key}</kbd>
        </a>
      ))}
      <div className="spacer" />
      <div className={`link-state${connected ? '' : ' down'}`} role="status">
        {connected ? 'Connected to Berth' : 'Reconnecting to Berth…'}
      </div>
      <button className="link" style={{ textAlign: 'left', padding: '4px 10px' }} onClick={() => stores.ui.getState().openDialog('shortcuts')}>
        Shortcuts <kbd>?</kbd>
      </button>
    </nav>
  )
}

function Screen() {
  const route = useUi((s) => s.route)
  switch (route.screen) {
    case 'session':
      return <SessionView id={route.id} />
    case 'snapshots':
      return <SnapshotsScreen session={route.session} />
    case 'servers':
      return <ServersScreen />
    case 'settings':
      return <SettingsScreen />
    default:
      return <SessionsScreen />
  }
}

function Dialogs() {
  const dialog = useUi((s) => s.dialog)
  return (
    <>
      {dialog === 'new-session' && <NewSessionDialog />}
      {dialog === 'add-server' && <AddServerDialog />}
      {dialog === 'shortcuts' && <ShortcutsDialog />}
      <PromptDialog />
      <ConfirmDialog />
    </>
  )
}

function GlobalKeys() {
  const stores = useStores()
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const ui = stores.ui.getState()
      // Alt+Shift: a browser tab keeps Ctrl+1..4 for itself; the desktop app takes the same keys
      // (Ctrl+1..4 still works where it reaches the page)
      const digit = /^Digit([1-4])$/.exec(e.code) ?? (e.ctrlKey || e.metaKey ? /^([1-4])$/.exec(e.key) : null)
      const alt = e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey
      const ctrl = (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey
      if (digit && (alt || ctrl)) {
        e.preventDefault()
        ui.navigate(NAV[Number(digit[1]) - 1]!.route)
        return
      }
      if (typingIn(e.target) || e.ctrlKey || e.metaKey || e.altKey || ui.dialog || ui.confirm) return
      if (e.key === 'n') {
        e.preventDefault()
        ui.openDialog('new-session')
      } else if (e.key === '?') {
        e.preventDefault()
        ui.openDialog('shortcuts')
      }
    }
    // capture: the screen shortcuts work even while a terminal has the keyboard
    window.addEventListener('keydown', onKey, true)
    return () => window.removeEventListener('keydown', onKey, true)
  }, [stores])
  return null
}

export function App({ stores }: { stores: AppStores }) {
  useEffect(() => {
    void stores.sessions.getState().load()
    void stores.servers.getState().load()
    void stores.settings.getState().load()
  }, [stores])
  return (
    <StoresContext.Provider value={stores}>
      <div className="app">
        <Nav />
        <main className="main">
          <Screen />
        </main>
      </div>
      <Dialogs />
      <Notices />
      <GlobalKeys />
    </StoresContext.Provider>
  )
}
