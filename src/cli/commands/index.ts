import type { Command } from '../command'
import { cliCommands } from './cli'
import { daemonCommands } from './daemon'
import { doctorCommand } from './doctor'
import { execCommand } from './exec'
import { jobCommands } from './jobs'
import { meterCommands } from './meter'
import { pauseCommands } from './pause'
import { powerCommands } from './power'
import { replicaCommands } from './replica'
import { routeCommands } from './routes'
import { secretCommands } from './secret'
import { serverCommands } from './server'
import { sessionCommands } from './session'
import { serveCommand } from './serve'
import { sessionVerbCommands } from './session-verbs'
import { settingsCommands } from './settings'
import { snapshotCommands } from './snapshot'
import { workspaceCommands } from './workspace'

export const commands: Command[] = [
  ...daemonCommands,
  doctorCommand,
  ...serverCommands,
  ...sessionCommands,
  execCommand,
  ...jobCommands,
  ...settingsCommands,
  ...pauseCommands,
  ...powerCommands,
  ...meterCommands,
  ...routeCommands,
  serveCommand,
  ...snapshotCommands,
  ...replicaCommands,
  ...sessionVerbCommands,
  ...workspaceCommands,
  ...secretCommands,
  ...cliCommands,
]
