import type { Snapshot } from '../../shared/models'
import { bool, str, type Command } from '../command'
import { printFields, printIds, printJson, printTable, say, UsageError } from '../output'
import { ago, bytes, millis, when } from '../../shared/format'
import { followProgress } from '../progress'

function showSnapshot(s: Snapshot): void {
  printFields([
    ['id', s.id],
    ['kind', s.kind],
    ['reason', s.reason],
    ['size', bytes(s.sizeBytes)],
    ['server', s.server],
    ['session', s.sessionId ? `${s.sessionId}${s.sessionName ? ` (${s.sessionName})` : ''}` : '-'],
    ['parent', s.parentSnapshot ?? '-'],
    ['created', when(s.createdAt)],
    ['automatic', s.auto ? 'yes' : 'no'],
    ['pinned', s.pinned ? 'yes (a fork, a rewind or a session made from it depends on it)' : 'no'],
    ['test restore', s.testRestored ? 'done' : 'not yet'],
    ...(typeof s.freezeMs === 'number' ? [['froze for', millis(s.freezeMs)] as [string, string]] : []),
    ...(s.memoryNote ? [['memory', s.memoryNote] as [string, string]] : []),
    ...(s.note ? [['note', s.note] as [string, string]] : []),
  ])
}

/** What a capture of a running session tells: the freeze its memory cost, or why it has none. */
export function captureNote(s: Snapshot): string {
  if (typeof s.freezeMs === 'number' && s.kind === 'memory+disk') return ` (with memory; the session froze for ${millis(s.freezeMs)} and kept running)`
  if (s.memoryNote) return ` (disk only: ${s.memoryNote})`
  return ''
}

const LS_USAGE = 'berth snapshot ls [--session ID] [--server NAME] [--name NAME] [--auto|--named] [--limit N] [--next TOKEN] [--json]'

export const snapshotCommands: Command[] = [
  {
    path: ['snapshot', 'create'],
    usage: 'berth snapshot create ID [--name NAME] [--json]',
    summary: 'snapshot a running or paused session (NAME:vN; the version grows with each snapshot of that name)',
    group: 'snapshots',
    options: { name: { type: 'string', value: 'NAME', help: 'its name (default: after the session); each snapshot of a name is its next version' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const s = await c.call('snapshot.create', { id: p.positionals[0]!, name: str(p, 'name'), op })
      if (io.json) printJson(s)
      else say(`${s.id}${captureNote(s)}\n`)
      return 0
    },
  },
  {
    path: ['snapshot', 'ls'],
    usage: LS_USAGE,
    summary: 'list snapshots, newest first, a page at a time',
    group: 'snapshots',
    listing: true,
    options: {
      session: { type: 'string', value: 'ID', help: 'only the snapshots of this session', complete: 'session' },
      server: { type: 'string', value: 'NAME', help: 'only those kept on this server', complete: 'server' },
      name: { type: 'string', value: 'NAME', help: 'only the versions of this name' },
      auto: { type: 'boolean', help: 'only the ones Berth took on its own (pauses, seals, moves)' },
      named: { type: 'boolean', help: 'only the ones someone named' },
      limit: { type: 'string', value: 'N', help: 'a page of N (1 to 500, default 50)' },
      next: { type: 'string', value: 'TOKEN', help: 'the next page, from the token the last one printed' },
    },
    positionals: [0, 0],
    async run(p, io) {
      const rawLimit = str(p, 'limit')
      const limit = rawLimit === undefined ? undefined : Number(rawLimit)
      if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 500)) throw new UsageError(`not a page size: ${rawLimit} (1 to 500)`, LS_USAGE)
      if (bool(p, 'auto') && bool(p, 'named')) throw new UsageError('give --auto or --named, not both', LS_USAGE)
      const auto = bool(p, 'auto') ? true : bool(p, 'named') ? false : undefined
      const page = await (await io.client()).call('snapshot.list', {
        session: str(p, 'session'),
        server: str(p, 'server'),
        name: str(p, 'name'),
        auto,
        limit,
        next: str(p, 'next'),
      })
      if (io.json) {
        printJson(page)
        return 0
      }
      if (io.quiet) {
        printIds(page.items.map((s) => s.id))
        return 0
      }
      if (page.items.length === 0) say('no snapshots: berth snapshot create ID --name NAME\n')
      else
        printTable(
          page.items.map((s) => [
            s.id,
            s.kind,
            bytes(s.sizeBytes),
            s.server,
            s.sessionName ?? s.sessionId ?? '-',
            s.parentSnapshot ?? '-',
            ago(s.createdAt),
            [s.auto ? 'auto' : '', s.pinned ? 'pinned' : '', s.testRestored ? 'tested' : ''].filter(Boolean).join(',') || '-',
          ]),
          ['ID', 'KIND', 'SIZE', 'SERVER', 'SESSION', 'PARENT', 'CREATED', 'FLAGS'],
        )
      if (page.next) say(`more: berth snapshot ls --next ${page.next}${rawLimit ? ` --limit ${rawLimit}` : ''}\n`)
      return 0
    },
  },
  {
    path: ['snapshot', 'show'],
    usage: 'berth snapshot show SNAPSHOT [--json]',
    summary: 'show one snapshot (NAME:vN, or NAME for its newest version)',
    group: 'snapshots',
    args: [{ name: 'SNAPSHOT', help: 'NAME:vN, or NAME for its newest version', complete: 'snapshot' }],
    positionals: [1, 1],
    async run(p, io) {
      const s = await (await io.client()).call('snapshot.show', { id: p.positionals[0]! })
      if (io.json) printJson(s)
      else showSnapshot(s)
      return 0
    },
  },
  {
    path: ['snapshot', 'rm'],
    usage: 'berth snapshot rm SNAPSHOT [--json]',
    summary: 'delete a snapshot and what it holds on its server',
    group: 'snapshots',
    args: [{ name: 'SNAPSHOT', help: 'NAME:vN, or NAME for its newest version', complete: 'snapshot' }],
    positionals: [1, 1],
    async run(p, io) {
      const r = await (await io.client()).call('snapshot.remove', { id: p.positionals[0]! })
      if (io.json) printJson({ deleted: r.deleted })
      else say(r.deleted ? `snapshot ${r.id} deleted\n` : `no snapshot ${p.positionals[0]}\n`)
      return 0
    },
  },
  {
    path: ['snapshot', 'test'],
    usage: 'berth snapshot test SNAPSHOT [--json]',
    summary: 'restore a snapshot into a throwaway container to prove it restores',
    group: 'snapshots',
    args: [{ name: 'SNAPSHOT', help: 'NAME:vN, or NAME for its newest version', complete: 'snapshot' }],
    positionals: [1, 1],
    async run(p, io) {
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const r = await c.call('snapshot.test', { id: p.positionals[0]!, op })
      if (io.json) printJson(r)
      else say(`${r.snapshot.id} restores${r.snapshot.kind === 'memory+disk' ? (r.memory ? ' with its memory' : ` from disk only: ${r.note}`) : ''} (${millis(r.ms)})\n`)
      return 0
    },
  },
]
