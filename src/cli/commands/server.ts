import { resolve } from 'node:path'
import type { MemoryPause, Server } from '../../shared/models'
import { str, type Command } from '../command'
import { printFields, printJson, printTable } from '../output'

/** One line on whether the server pauses with memory, for people. */
export function memoryLine(m: MemoryPause | null): string {
  if (!m) return 'not tested yet'
  const rate = m.available && m.dumpMiBps ? `, about ${Math.round(m.dumpMiBps)} MiB/s` : ''
  return `${m.available ? `yes (${m.how}${rate})` : 'no'}: ${m.note}`
}

const show = (s: Server) =>
  printFields([
    ['name', s.name],
    ['kind', s.kind],
    ['url', s.url],
    ['identity', s.identity],
    ['host key', s.hostKeyFingerprint],
    ['state', s.state],
    ['memory pause', memoryLine(s.memoryPause)],
    ['tested', s.memoryPause?.probedAt ?? '-'],
  ])

export const serverCommands: Command[] = [
  {
    path: ['server', 'add'],
    usage: 'berth server add NAME ssh://USER@HOST:PORT [--identity FILE] [--accept-host-key SHA256:FP] [--json]',
    summary: 'connect a server over ssh (the first add needs its host key confirmed)',
    options: { identity: { type: 'string', short: 'i' }, 'accept-host-key': { type: 'string' } },
    positionals: [2, 2],
    async run(p, io) {
      const c = await io.client()
      const identity = str(p, 'identity')
      const s = await c.call('server.add', {
        name: p.positionals[0]!,
        url: p.positionals[1]!,
        identity: identity ? resolve(identity) : undefined,
        acceptHostKey: str(p, 'accept-host-key'),
      })
      if (io.json) printJson(s)
      else {
        process.stdout.write(`server ${s.name} added\n`)
        show(s)
      }
      return 0
    },
  },
  {
    path: ['server', 'ls'],
    usage: 'berth server ls [--json]',
    summary: 'list servers',
    positionals: [0, 0],
    async run(_p, io) {
      const list = await (await io.client()).call('server.list', {})
      if (io.json) printJson(list)
      else
        printTable(
          list.map((s) => [s.name, s.kind, s.state, s.url, s.memoryPause ? (s.memoryPause.available ? s.memoryPause.how : 'no') : '?', s.hostKeyFingerprint ?? '-']),
          ['NAME', 'KIND', 'STATE', 'URL', 'MEMORY', 'HOST KEY'],
        )
      return 0
    },
  },
  {
    path: ['server', 'show'],
    usage: 'berth server show NAME [--json]',
    summary: 'one server: its address, state, and whether it can pause with memory (and why not)',
    positionals: [1, 1],
    async run(p, io) {
      const s = await (await io.client()).call('server.show', { name: p.positionals[0]! })
      if (io.json) printJson(s)
      else show(s)
      return 0
    },
  },
  {
    path: ['server', 'rm'],
    usage: 'berth server rm NAME [--json]',
    summary: 'forget a connected server (and remove the helper container Berth started there)',
    positionals: [1, 1],
    async run(p, io) {
      const r = await (await io.client()).call('server.remove', { name: p.positionals[0]! })
      if (io.json) printJson(r)
      else if (!r.removed) process.stdout.write(`no server named ${p.positionals[0]}\n`)
      else {
        const helper = r.helper === 'removed' ? ", and Berth's helper container on it" : r.helper === 'left' ? "; it did not answer, so Berth's helper container (berth-helper-*) is still there" : ''
        process.stdout.write(`server ${p.positionals[0]} removed${helper}\n`)
      }
      return 0
    },
  },
  {
    path: ['server', 'test'],
    usage: 'berth server test NAME [--json]',
    summary: "print a server's engine version and round-trip time, and test again whether it can pause with memory",
    positionals: [1, 1],
    async run(p, io) {
      const t = await (await io.client()).call('server.test', { name: p.positionals[0]! })
      if (io.json) printJson(t)
      else
        printFields([
          ['server', t.name],
          ['engine', `Docker ${t.version} (API ${t.apiVersion})`],
          ['round trip', `${t.rttMs} ms`],
          ['memory pause', memoryLine(t.memoryPause)],
          ['os', `${t.os}, kernel ${t.kernel}`],
        ])
      return 0
    },
  },
]
