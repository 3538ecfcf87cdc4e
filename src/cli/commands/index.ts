import type { Command } from '../command'
import { daemonCommands } from './daemon'
import { execCommand } from './exec'
import { meterCommands } from './meter'
import { pauseCommands } from './pause'
import { powerCommands } from './power'
import { routeCommands } from './routes'
import { serverCommands } from './server'
import { sessionCommands } from './session'
import { serveCommand } from './serve'
import { settingsCommands } from './settings'

export const commands: Command[] = [
  ...daemonCommands,
  ...serverCommands,
  ...sessionCommands,
  execCommand,
  ...settingsCommands,
  ...pauseCommands,
  ...powerCommands,
  ...meterCommands,
  ...routeCommands,
  serveCommand,
]
