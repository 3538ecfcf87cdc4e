// Verbs that remake a session's container: fork, rewind, restart; and the stale clean-up list.
import { str, strs, type Command } from '../command'
import { printIds, printJson, printTable, say, UsageError } from '../output'
import { ago } from '../../shared/format'
import { followProgress } from '../progress'
import { parseEnv, stateLabel } from './session'
import { captureNote } from './snapshot'

const FORK_USAGE = 'berth fork ID [--name N] [--count K] [--json]'
const RESTART_USAGE = 'berth restart ID [--env K=V]... [--json]'

export const sessionVerbCommands: Command[] = [
  {
    path: ['fork'],
    usage: FORK_USAGE,
    summary: 'K independent sessions from one capture of a session (each succeeds or fails on its own)',
    group: 'snapshots',
    options: {
      name: { type: 'string', value: 'N', help: 'name the forks N-1, N-2... (default: after the session)' },
      count: { type: 'string', short: 'k', value: 'K', help: 'how many forks (1 to 16, default 1)' },
    },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const raw = str(p, 'count')
      const count = raw === undefined ? undefined : Number(raw)
      if (count !== undefined && (!Number.isInteger(count) || count < 1 || count > 16)) throw new UsageError(`not a fork count: ${raw} (1 to 16)`, FORK_USAGE)
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const r = await c.call('session.fork', { id: p.positionals[0]!, name: str(p, 'name'), count, op })
      if (io.json) printJson(r)
      else {
        say(`captured ${r.capture.id} (${r.capture.kind})${captureNote(r.capture)}\n`)
        for (const f of r.forks) {
          if (f.ok) say(`fork ${f.index}: ${f.session.id} ${f.session.name} running${f.memory ? ' with memory' : r.capture.kind === 'memory+disk' ? ` from disk (${f.note})` : ''}\n`)
          else say(`fork ${f.index}: failed: ${f.error.message}\n`)
        }
      }
      return r.failed > 0 ? 1 : 0
    },
  },
  {
    path: ['rewind'],
    usage: 'berth rewind ID --to SNAPSHOT [--json]',
    summary: 'bring a session back to an earlier snapshot of its own (its current state is kept as a snapshot first)',
    group: 'snapshots',
    options: { to: { type: 'string', value: 'SNAPSHOT', help: 'the snapshot of its own to go back to', complete: 'snapshot' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const to = str(p, 'to')
      if (!to) throw new UsageError('missing --to SNAPSHOT', 'berth rewind ID --to SNAPSHOT [--json]')
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const r = await c.call('session.rewind', { id: p.positionals[0]!, to, op })
      if (io.json) printJson(r)
      else say(`${r.session.name} is back at ${r.to.id}; its state before the rewind is kept as ${r.kept.id}\n`)
      return 0
    },
  },
  {
    path: ['restart'],
    usage: RESTART_USAGE,
    summary: 'recreate the container with the session env; id, files, views and route stay; processes stop',
    group: 'snapshots',
    options: { env: { type: 'string', short: 'e', multiple: true, value: 'K=V', help: 'set (or change) an environment value for the new container' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const env = parseEnv(strs(p, 'env'), RESTART_USAGE)
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const s = await c.call('session.restart', { id: p.positionals[0]!, env: Object.keys(env).length ? env : undefined, op })
      if (io.json) printJson(s)
      else say(`session ${s.name} restarted\n`)
      return 0
    },
  },
  {
    path: ['session', 'stale'],
    usage: 'berth session stale [--json]',
    summary: 'paused sessions older than the staleAfterDays setting, for you to clean up (Berth never deletes them)',
    group: 'sessions',
    listing: true,
    positionals: [0, 0],
    async run(_p, io) {
      const r = await (await io.client()).call('session.stale', {})
      if (io.json) printJson(r)
      else if (io.quiet) printIds(r.sessions.map((s) => s.id))
      else if (r.sessions.length === 0) say(`no session has been paused for more than ${r.days} days\n`)
      else {
        printTable(r.sessions.map((s) => [s.id, s.name, s.server, stateLabel(s), ago(s.updatedAt)]), ['ID', 'NAME', 'SERVER', 'STATE', 'PAUSED'])
        say(`finish the ones you no longer need: berth finish ID (save first: berth save ID)\n`)
      }
      return 0
    },
  },
]
