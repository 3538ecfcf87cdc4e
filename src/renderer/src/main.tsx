// The page's first script, kept small: the connection to the core starts at once (in a browser
// tab its worker boots and the WebSocket opens) while the rest of the page's code loads and is
// parsed (boot.tsx); the contract's schemas (zod) load only when a form is checked.
import '@xterm/xterm/css/xterm.css'
import './styles.css'
import { createClient } from './api/client'
import { pageBridge } from './api/bridge'

const client = createClient(pageBridge())
import('./boot').then(
  (m) => m.boot(client),
  (e: unknown) => {
    // a page whose code did not load says so instead of staying blank
    const root = document.getElementById('root')
    if (root) root.textContent = `Berth's page did not load (${e instanceof Error ? e.message : String(e)}); reload it.`
  },
)
