import { str, type Command } from '../command'
import { printFields, printJson, say } from '../output'
import { when } from '../../shared/format'
import { followProgress } from '../progress'

export const workspaceCommands: Command[] = [
  {
    path: ['save'],
    usage: 'berth save ID [--message M] [--json]',
    summary: "commit the session's workspace, merge it --no-ff into main and write main back to its folder",
    group: 'sessions',
    options: { message: { type: 'string', short: 'm', value: 'M', help: 'the commit message (default: one naming the session)' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const r = await c.call('workspace.save', { id: p.positionals[0]!, message: str(p, 'message'), op })
      if (io.json) printJson(r)
      else if (!r.merge) say(`nothing new to save: ${r.dir}'s main (${r.main.slice(0, 12)}) has all of ${r.branch}\n`)
      else
        say(
          `saved ${r.branch} into ${r.dir}'s main: ${r.main.slice(0, 12)}${r.mainMoved ? ' (main had moved: merged it into the session first)' : ''}${r.files.length ? `; ${r.files.length} file${r.files.length === 1 ? '' : 's'}` : ''}\n`,
        )
      return 0
    },
  },
  {
    path: ['workspace', 'status'],
    usage: 'berth workspace status ID [--json]',
    summary: 'what in a session has not been saved to its workspace folder yet',
    group: 'sessions',
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const s = await (await io.client()).call('workspace.status', { id: p.positionals[0]! })
      if (io.json) printJson(s)
      else {
        printFields([
          ['workspace', `${s.dir} (${s.branch})`],
          ['saved', s.saved ? 'yes: everything is in main' : 'no'],
          ['last save', s.lastSave ? `${when(s.lastSave.at)}, main at ${s.lastSave.main.slice(0, 12)}` : 'never'],
        ])
        for (const l of s.changes) say(`  ${l}\n`)
        for (const l of s.unsavedCommits) say(`  commit ${l}\n`)
      }
      return 0
    },
  },
]
