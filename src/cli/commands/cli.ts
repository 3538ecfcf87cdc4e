// The verbs about the command line itself: help and the shell completions.
import type { Command } from '../command'
import { completionScript, SHELLS, type Shell } from '../completion'
import { helpFor } from '../help'
import { UsageError } from '../output'
import { commands } from './index'

export const cliCommands: Command[] = [
  {
    path: ['help'],
    usage: 'berth help [VERB... | GROUP]',
    summary: 'help for a verb, the verbs under a word (berth help session), or a group (berth help pause)',
    group: 'berth',
    args: [{ name: 'TOPIC...', help: 'a verb (session create), its first word (server) or a group (sessions, pause, snapshots, servers, routes, power, settings)' }],
    positionals: [0, 3],
    json: false,
    async run(p) {
      const text = helpFor(commands, p.positionals)
      if (!text) throw new UsageError(`no help on ${p.positionals.join(' ')}`, 'berth help [VERB... | GROUP]  (berth --help lists them)')
      process.stdout.write(text)
      return 0
    },
  },
  {
    path: ['completion'],
    usage: 'berth completion bash|zsh|fish',
    summary: 'print the shell completion script: verbs, flags, and session, server and snapshot names',
    group: 'berth',
    args: [{ name: 'SHELL', help: 'bash (source <(berth completion bash)), zsh (source <(berth completion zsh)) or fish (berth completion fish | source)', complete: SHELLS }],
    positionals: [1, 1],
    json: false,
    async run(p) {
      const shell = p.positionals[0] as Shell
      if (!SHELLS.includes(shell)) throw new UsageError(`no completion for ${shell}: bash, zsh or fish`, this.usage)
      process.stdout.write(completionScript(shell))
      return 0
    },
  },
]
