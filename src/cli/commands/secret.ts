import type { SecretProtection } from '../../shared/contract/secrets'
import type { Command } from '../command'
import { printIds, printJson, printTable, say, UsageError, warn } from '../output'
import { ago } from '../../shared/format'

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) warn('type the value, then Ctrl-D:\n')
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks)
}

function describeProtection(p: SecretProtection): string {
  return `stored in ${p.file}, each value sealed (${p.sealed}) with the key in ${p.keyFile} (0600: your user only, and any program it runs)\n${p.note}`
}

export const secretCommands: Command[] = [
  {
    path: ['secret', 'set'],
    usage: 'berth secret set NAME [--json]   (the value comes from stdin)',
    summary: 'store a secret; sessions created with --secret NAME get it as /run/berth/secrets/NAME',
    group: 'settings',
    args: [{ name: 'NAME', help: 'the secret\'s name (its value comes from stdin)', complete: 'secret' }],
    positionals: [1, 1],
    async run(p, io) {
      const value = await readStdin()
      if (value.length === 0) throw new UsageError('the secret is empty: pass its value on stdin', 'berth secret set NAME < FILE')
      if (value.length > 64 * 1024) throw new UsageError('the secret is larger than 64 KiB', 'berth secret set NAME < FILE')
      const r = await (await io.client()).call('secret.set', { name: p.positionals[0]!, valueBase64: value.toString('base64') })
      if (io.json) printJson(r)
      else say(`secret ${r.name} ${r.created ? 'stored' : 'updated'}\n`)
      return 0
    },
  },
  {
    path: ['secret', 'ls'],
    usage: 'berth secret ls [--json]',
    summary: 'names of stored secrets (never their values)',
    group: 'settings',
    listing: true,
    positionals: [0, 0],
    async run(_p, io) {
      const c = await io.client()
      const list = await c.call('secret.list', {})
      if (io.json) printJson(list)
      else if (io.quiet) printIds(list.map((s) => s.name))
      else {
        if (list.length === 0) say('no secrets: berth secret set NAME < FILE\n')
        else printTable(list.map((s) => [s.name, ago(s.updatedAt)]), ['NAME', 'UPDATED'])
        // where they are and what guards them, plainly when the keychain is no keychain (basic_text)
        const info = await c.call('secret.info', {})
        say(`\n${describeProtection(info)}\n`)
      }
      return 0
    },
  },
  {
    path: ['secret', 'info'],
    usage: 'berth secret info [--json]',
    summary: 'where secret values are stored and what protects them (the key file, the OS keychain or not)',
    group: 'settings',
    positionals: [0, 0],
    async run(_p, io) {
      const info = await (await io.client()).call('secret.info', {})
      if (io.json) printJson(info)
      else say(describeProtection(info) + '\n')
      return 0
    },
  },
  {
    path: ['secret', 'rm'],
    usage: 'berth secret rm NAME [--json]',
    summary: 'forget a secret (sessions that have it keep it until their next start)',
    group: 'settings',
    args: [{ name: 'NAME', help: 'the secret', complete: 'secret' }],
    positionals: [1, 1],
    async run(p, io) {
      const r = await (await io.client()).call('secret.remove', { name: p.positionals[0]! })
      if (io.json) printJson(r)
      else say(r.removed ? `secret ${p.positionals[0]} removed\n` : `no secret named ${p.positionals[0]}\n`)
      return 0
    },
  },
]
