import { homedir } from 'node:os'
import { join } from 'node:path'

/** $BERTH_HOME, else the platform's app data folder (the same one Electron's userData names). */
export function berthHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BERTH_HOME) return env.BERTH_HOME
  switch (process.platform) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'Berth')
    case 'win32':
      return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Berth')
    default:
      return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Berth')
  }
}
