import type { Command } from '../command'
import { daemonCommands } from './daemon'
import { execCommand } from './exec'
import { secretCommands } from './secret'
import { serverCommands } from './server'
import { sessionCommands } from './session'
import { sessionVerbCommands } from './session-verbs'
import { settingsCommands } from './settings'
import { snapshotCommands } from './snapshot'
import { workspaceCommands } from './workspace'

export const commands: Command[] = [
  ...daemonCommands,
  ...serverCommands,
  ...sessionCommands,
  execCommand,
  ...settingsCommands,
  ...snapshotCommands,
  ...sessionVerbCommands,
  ...workspaceCommands,
  ...secretCommands,
]
