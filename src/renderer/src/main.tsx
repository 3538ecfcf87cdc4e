import '@xterm/xterm/css/xterm.css'
import './styles.css'
import { createRoot } from 'react-dom/client'
import { createClient } from './api/client'
import { pageBridge } from './api/bridge'
import { App } from './App'
import { createAppStores } from './stores/app-stores'

const stores = createAppStores(createClient(pageBridge()), window)
createRoot(document.getElementById('root')!).render(<App stores={stores} />)
