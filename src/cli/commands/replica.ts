import type { ReplicaInfo } from '../../shared/contract/replicas'
import type { Command } from '../command'
import { printIds, printJson, printTable, say } from '../output'
import { followProgress } from '../progress'
import { bytes as humanBytes, duration, when } from '../../shared/format'

const row = (r: ReplicaInfo) => [
  r.name,
  r.server,
  r.status === 'stale' ? `stale (generation ${r.generation} of ${r.sessionGeneration}; berth replica clean)` : r.status,
  r.kind,
  when(r.at),
  r.status === 'stale' ? '-' : r.behindSeconds ? duration(r.behindSeconds) : 'up to date',
  humanBytes(r.bytes),
  r.failure ?? '',
]

export const replicaCommands: Command[] = [
  {
    path: ['replica', 'ls'],
    usage: 'berth replica ls [ID] [--json]',
    summary: "list sessions' replicas (and the stale copies fail-overs left behind), with how far behind each is",
    group: 'snapshots',
    listing: true,
    args: [{ name: 'ID', help: 'only this session (its id, name or route)', complete: 'session' }],
    positionals: [0, 1],
    async run(p, io) {
      const list = await (await io.client()).call('replica.list', { session: p.positionals[0] })
      if (io.json) printJson(list)
      else if (io.quiet) printIds(list.map((r) => `${r.sessionId}@${r.server}`))
      else if (list.length === 0) say('no replicas\n')
      else printTable(list.map(row), ['SESSION', 'SERVER', 'STATUS', 'KIND', 'STATE OF', 'BEHIND', 'SENT', 'LAST FAILURE'])
      return 0
    },
  },
  {
    path: ['replica', 'sync'],
    usage: 'berth replica sync ID [--json]',
    summary: "bring a session's replica up to date now (its last pause or seal; only what the target lacks travels)",
    group: 'snapshots',
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const c = await io.client()
      const op = await followProgress(c, io.json)
      const r = await c.call('replica.sync', { id: p.positionals[0]!, op })
      if (io.json) printJson(r)
      else say(`${r.name}'s replica on ${r.server} holds its state of ${when(r.at)} (${r.kind}); ${humanBytes(r.bytes)} sent\n`)
      return 0
    },
  },
  {
    path: ['replica', 'clean'],
    usage: 'berth replica clean [ID] [--json]',
    summary: 'remove the stale copies fail-overs left, on servers that answer again',
    group: 'snapshots',
    args: [{ name: 'ID', help: 'only this session (its id, name or route)', complete: 'session' }],
    positionals: [0, 1],
    async run(p, io) {
      const r = await (await io.client()).call('replica.clean', { id: p.positionals[0] })
      if (io.json) printJson(r)
      else {
        for (const x of r.removed) say(`removed ${x.name}'s stale copy on ${x.server}\n`)
        for (const x of r.kept) say(`kept ${x.replica.name}'s stale copy on ${x.replica.server}: ${x.reason}\n`)
        if (!r.removed.length && !r.kept.length) say('no stale copies\n')
      }
      return 0
    },
  },
]
