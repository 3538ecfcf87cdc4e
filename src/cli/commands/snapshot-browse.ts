// The snapshot browser's verbs: a session's timeline with what depends on each checkpoint, and what
// changed between two snapshots (a page at a time; --path for one file's text diff).
import { str, type Command } from '../command'
import { printJson, printTable, say, UsageError } from '../output'
import { ago, bytes as humanBytes } from '../../shared/format'

const DIFF_USAGE = 'berth snapshot diff SNAPSHOT [SNAPSHOT2] [--path PATH] [--limit N] [--offset N] [--json]'
const MARK = { added: 'A', changed: 'M', deleted: 'D' } as const

function count(p: Parameters<Command['run']>[0], name: string, max: number): number | undefined {
  const raw = str(p, name)
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > max) throw new UsageError(`not a ${name}: ${raw} (0 to ${max})`, DIFF_USAGE)
  return n
}

export const snapshotBrowseCommands: Command[] = [
  {
    path: ['snapshot', 'timeline'],
    usage: 'berth snapshot timeline ID [--json]',
    summary: "a session's checkpoints, oldest first, with what depends on each and the sessions around it",
    group: 'snapshots',
    listing: true,
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const t = await (await io.client()).call('snapshot.timeline', { session: p.positionals[0]! })
      if (io.json) {
        printJson(t)
        return 0
      }
      if (t.items.length === 0) say(`no checkpoints of ${t.session.name} yet: berth snapshot create ${t.session.name}\n`)
      else
        printTable(
          t.items.map((s) => [
            s.id,
            s.reason ?? '-',
            s.kind,
            humanBytes(s.sizeBytes),
            s.server,
            ago(s.createdAt),
            s.dependents.map((d) => (d.kind === 'session' ? `session ${d.name}` : d.name)).join(', ') || '-',
          ]),
          ['ID', 'REASON', 'KIND', 'SIZE', 'SERVER', 'CREATED', 'DEPENDS ON IT'],
        )
      if (t.lineage.length > 1) {
        say('\nlineage:\n')
        const depth = new Map<string, number>()
        for (const n of t.lineage) {
          const d = n.parent ? (depth.get(n.parent) ?? 0) + 1 : 0
          depth.set(n.id, d)
          const via = n.snapshot ? ` (${n.verb ?? 'made'} from ${n.snapshot})` : ''
          say(`${'  '.repeat(d)}${n.id === t.session.id ? '* ' : '- '}${n.name} [${n.state}, ${n.server}]${via}\n`)
        }
      }
      return 0
    },
  },
  {
    path: ['snapshot', 'diff'],
    usage: DIFF_USAGE,
    summary: 'the files added, changed and deleted between two snapshots (one: since the checkpoint before it)',
    group: 'snapshots',
    listing: true,
    options: {
      path: { type: 'string', value: 'PATH', help: 'a text diff of this one file instead of the list' },
      limit: { type: 'string', value: 'N', help: 'a page of N files (1 to 5000, default 500)' },
      offset: { type: 'string', value: 'N', help: 'start at the Nth file (the next page from the last one)' },
    },
    args: [
      { name: 'SNAPSHOT', help: 'NAME:vN (alone: compared with the checkpoint before it)', complete: 'snapshot' },
      { name: 'SNAPSHOT2', help: 'the later snapshot: the changes from SNAPSHOT to it', complete: 'snapshot' },
    ],
    positionals: [1, 2],
    async run(p, io) {
      const [first, second] = p.positionals as [string, string | undefined]
      const pair = second ? { from: first, to: second } : { to: first }
      const c = await io.client()
      const path = str(p, 'path')
      if (path !== undefined) {
        const d = await c.call('snapshot.diffFile', { ...pair, path })
        if (io.json) printJson(d)
        else if (d.kind === 'diff') say(`${d.text ?? ''}${d.truncated ? '\n(cut: the diff goes on)' : ''}\n`)
        else say(d.kind === 'binary' ? `${path}: binary, no text diff\n` : `${path}: ${humanBytes(d.bytes ?? 0)}, too large for a text diff\n`)
        return 0
      }
      const limit = count(p, 'limit', 5000)
      if (limit === 0) throw new UsageError('not a limit: 0 (1 to 5000)', DIFF_USAGE)
      const page = await c.call('snapshot.diff', { ...pair, limit, offset: count(p, 'offset', 1e9) })
      if (io.json) {
        printJson(page)
        return 0
      }
      if (io.quiet) {
        for (const e of page.items) say(`${e.path}\n`)
        return 0
      }
      say(`${page.total} change${page.total === 1 ? '' : 's'} from ${page.from} to ${page.to}\n`)
      if (page.items.length) printTable(page.items.map((e) => [MARK[e.status], e.type, humanBytes(e.size), e.path]), ['', 'TYPE', 'SIZE', 'PATH'])
      if (page.next !== null) say(`more: berth snapshot diff ${p.positionals.join(' ')} --offset ${page.next}${limit ? ` --limit ${limit}` : ''}\n`)
      return 0
    },
  },
]
