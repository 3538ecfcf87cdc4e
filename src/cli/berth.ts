// `berth`: argument parsing and printing only; every verb is a contract call to the running core.
import { berthHome } from '../main/core/home'
import { VERSION } from '../main/core/version'
import { connectOrStart, type ControlClient } from './client'
import { parseCommand, type Command, type Io } from './command'
import { commands } from './commands'
import { fail, forTerminal, UsageError } from './output'

function findCommand(argv: string[]): { cmd: Command; rest: string[] } | undefined {
  let best: { cmd: Command; rest: string[] } | undefined
  for (const cmd of commands) {
    const n = cmd.path.length
    if (cmd.path.every((w, i) => argv[i] === w) && (!best || n > best.cmd.path.length)) best = { cmd, rest: argv.slice(n) }
  }
  return best
}

function help(): string {
  const lines = commands.map((c) => `  ${c.usage}`)
  return `berth ${VERSION}: sandbox sessions on your laptop and your servers\n\nusage:\n${lines.join('\n')}\n\nexit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 server unreachable or refused\n`
}

export async function main(argv: string[], entry: string): Promise<number> {
  const json = argv.includes('--json')
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(help())
    return argv.length === 0 ? 2 : 0
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  let client: ControlClient | undefined
  try {
    const found = findCommand(argv)
    if (!found) {
      const group = commands.filter((c) => c.path[0] === argv[0])
      const usage = group.length ? group.map((c) => c.usage).join('\n       ') : 'berth --help'
      throw new UsageError(group.length ? `unknown ${argv[0]} verb: ${argv[1] ?? '(none)'}` : `unknown verb: ${argv[0]}`, usage)
    }
    const parsed = parseCommand(found.cmd, found.rest)
    if (parsed.values.help) {
      process.stdout.write(`usage: ${found.cmd.usage}\n${found.cmd.summary}\n`)
      return 0
    }
    const home = berthHome()
    const io: Io = {
      json,
      home,
      entry,
      client: async () => (client ??= await connectOrStart(home, entry)),
    }
    return await found.cmd.run(parsed, io)
  } catch (e) {
    return fail(e, json)
  } finally {
    client?.close()
  }
}

if (require.main === module) {
  main(process.argv.slice(2), __filename).then(
    (code) => {
      process.exitCode = code
    },
    (e: unknown) => {
      process.stderr.write(forTerminal(`berth: ${(e as Error).message}\n`))
      process.exitCode = 1
    },
  )
}
