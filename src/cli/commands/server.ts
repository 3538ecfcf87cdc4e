import { resolve } from 'node:path'
import type { MemoryPause, Server } from '../../shared/models'
import { str, type Command } from '../command'
import { printFields, printIds, printJson, printTable, say } from '../output'

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
    ['ssh config', s.alias ? `Host ${s.alias} of ~/.ssh/config (read again on every connection)` : undefined],
    ['identity', s.identity],
    ['host key', s.hostKeyFingerprint],
    ['state', s.state],
    ['memory pause', memoryLine(s.memoryPause)],
    ['tested', s.memoryPause?.probedAt ?? '-'],
  ])

export const serverCommands: Command[] = [
  {
    path: ['server', 'add'],
    usage: 'berth server add NAME ssh://USER@HOST:PORT|SSH_CONFIG_HOST [--identity FILE] [--accept-host-key SHA256:FP] [--json]',
    summary: 'connect a server over ssh, by address or by a Host of ~/.ssh/config (a host key your ssh does not trust yet needs confirming)',
    group: 'servers',
    options: {
      identity: { type: 'string', short: 'i', value: 'FILE', help: 'the private key to log in with (default: the ssh config\'s, else your ssh agent)', complete: 'file' },
      'accept-host-key': { type: 'string', value: 'SHA256:FP', help: 'the host key fingerprint you confirmed (the first add prints it)' },
    },
    args: [
      { name: 'NAME', help: 'what Berth calls it: lowercase letters, digits and dashes' },
      { name: 'ADDRESS', help: 'ssh://USER@HOST:PORT, or a Host of your ~/.ssh/config' },
    ],
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
        say(`server ${s.name} added: ${s.hostKeyTrust}\n`)
        show(s)
      }
      return 0
    },
  },
  {
    path: ['server', 'ls'],
    usage: 'berth server ls [--json]',
    summary: 'list servers',
    group: 'servers',
    listing: true,
    positionals: [0, 0],
    async run(_p, io) {
      const list = await (await io.client()).call('server.list', {})
      if (io.json) printJson(list)
      else if (io.quiet) printIds(list.map((s) => s.name))
      else
        printTable(
          list.map((s) => [s.name, s.kind, s.state, s.alias ? `${s.alias} (${s.url})` : s.url, s.memoryPause ? (s.memoryPause.available ? s.memoryPause.how : 'no') : '?', s.hostKeyFingerprint ?? '-']),
          ['NAME', 'KIND', 'STATE', 'URL', 'MEMORY', 'HOST KEY'],
        )
      return 0
    },
  },
  {
    path: ['server', 'show'],
    usage: 'berth server show NAME [--json]',
    summary: 'one server: its address, state, and whether it can pause with memory (and why not)',
    group: 'servers',
    args: [{ name: 'NAME', help: 'the server', complete: 'server' }],
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
    group: 'servers',
    args: [{ name: 'NAME', help: 'the server', complete: 'server' }],
    positionals: [1, 1],
    async run(p, io) {
      const r = await (await io.client()).call('server.remove', { name: p.positionals[0]! })
      if (io.json) printJson(r)
      else if (!r.removed) say(`no server named ${p.positionals[0]}\n`)
      else {
        const helper = r.helper === 'removed' ? ", and Berth's helper container on it" : r.helper === 'left' ? "; it did not answer, so Berth's helper container (berth-helper-*) is still there" : ''
        say(`server ${p.positionals[0]} removed${helper}\n`)
      }
      return 0
    },
  },
  {
    path: ['server', 'test'],
    usage: 'berth server test NAME [--json]',
    summary: "print a server's engine version and round-trip time, and test again whether it can pause with memory",
    group: 'servers',
    args: [{ name: 'NAME', help: 'the server', complete: 'server' }],
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
