// `berth`: argument parsing and printing only; every verb is a contract call to the running core.
import { berthHome } from '../main/core/home'
import { VERSION } from '../main/core/version'
import { connectOrStart, type ControlClient } from '../main/doors/control-client'
import { parseCommand, wantsHelp, type Io } from './command'
import { commands } from './commands'
import { complete, coreNames, findCommand } from './completion'
import { helpFor, topHelp, verbHelp } from './help'
import { fail, forTerminal, UsageError } from './output'

let pipeWatched = false
/** A reader that stops early (`berth logs ID JOB --follow | head`) ends the command quietly, as it ends any Unix tool. */
function endQuietlyOnClosedPipe(): void {
  if (pipeWatched) return
  pipeWatched = true
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0)
    process.stderr.write(`berth: ${e.message}\n`)
    process.exit(1)
  })
}

export async function main(argv: string[], entry: string): Promise<number> {
  endQuietlyOnClosedPipe()
  const json = argv.includes('--json')
  if (argv.length === 0) {
    process.stdout.write(topHelp(commands))
    return 2
  }
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(topHelp(commands))
    return 0
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    process.stdout.write(`${VERSION}\n`)
    return 0
  }
  if (argv[0] === '__complete') {
    // the shell's completion script asks here; it must never fail loudly nor start a daemon
    const out = await complete(commands, argv.slice(1), coreNames(berthHome())).catch(() => [] as string[])
    if (out.length) process.stdout.write(out.join('\n') + '\n')
    return 0
  }
  let client: ControlClient | undefined
  try {
    const found = findCommand(commands, argv)
    if (!found) {
      const words = argv.filter((w) => !w.startsWith('-'))
      const under = commands.filter((c) => c.path[0] === argv[0])
      if (wantsHelp(argv)) {
        const text = helpFor(commands, words)
        if (text) {
          process.stdout.write(text)
          return 0
        }
      }
      if (under.length) throw new UsageError(`unknown ${argv[0]} verb: ${argv[1] ?? '(none)'}`, `berth ${argv[0]} ${[...new Set(under.map((c) => c.path[1] ?? ''))].filter(Boolean).join('|')}  (berth ${argv[0]} --help)`)
      throw new UsageError(`unknown verb: ${argv[0]}`, 'berth --help lists them')
    }
    if (wantsHelp(found.rest)) {
      process.stdout.write(verbHelp(commands, found.cmd))
      return 0
    }
    const parsed = parseCommand(found.cmd, found.rest)
    const home = berthHome()
    const io: Io = {
      json,
      quiet: parsed.values.quiet === true,
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
