// The app itself, loaded by main.tsx once the connection to the core is under way.
import { createRoot } from 'react-dom/client'
import type { Client } from './api/client'
import { App } from './App'
import { createAppStores } from './stores/app-stores'

export function boot(client: Client): void {
  const stores = createAppStores(client, window)
  createRoot(document.getElementById('root')!).render(<App stores={stores} />)
}
