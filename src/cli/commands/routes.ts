import { bool, type Command } from '../command'
import { printJson, say } from '../output'

export const routeCommands: Command[] = [
  {
    path: ['ssh-config'],
    usage: 'berth ssh-config [--write] [--json]',
    summary: 'print the ssh config with a Host block per live session (<route>.berth); --write keeps it in a file to Include',
    group: 'routes',
    options: { write: { type: 'boolean', help: 'keep it in the file Berth updates as sessions come and go, and print the Include line' } },
    positionals: [0, 0],
    async run(p, io) {
      const write = bool(p, 'write')
      const r = await (await io.client()).call('routes.sshConfig', { write })
      if (io.json) printJson(r)
      else if (!write) say(r.text)
      else {
        say(`wrote ${r.path} (${r.hosts.length} session${r.hosts.length === 1 ? '' : 's'}); Berth keeps it current as sessions come and go.\n`)
        say(`Add this line at the top of ~/.ssh/config (Berth never edits that file):\n\n    ${r.includeLine}\n\n`)
        if (r.hosts[0]) say(`then: ssh ${r.hosts[0]}\n`)
      }
      return 0
    },
  },
]
