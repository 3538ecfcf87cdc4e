// A CLI verb, declared once: its path, usage, flags and arguments (each with its one line of help,
// and what completes it), and what it does. Parsing, `--help`, `berth help` and the shell
// completions are all read from these objects, so a verb cannot ship without its help.
import { parseArgs } from 'node:util'
import type { ControlClient } from '../main/doors/control-client'
import { UsageError } from './output'

/** What the shell completes a value with: names from the running core, or a fixed list. */
export type Completion = 'session' | 'server' | 'snapshot' | 'secret' | 'setting' | 'file' | readonly string[]

export interface OptionSpec {
  type: 'string' | 'boolean'
  multiple?: boolean
  short?: string
  /** the value's placeholder in help (string flags): NAME, SECONDS... */
  value?: string
  /** one line of help */
  help: string
  complete?: Completion
}

export interface ArgSpec {
  name: string
  help: string
  complete?: Completion
}

/** How `berth --help` groups the verbs. */
export const GROUPS = {
  sessions: 'sessions: create, list, run commands in them, save their work, finish them',
  pause: 'pause and resume',
  snapshots: 'snapshots, forks, rewinds and restarts',
  servers: 'servers: the laptop and the connected ones',
  routes: 'routes: reach a session by its name',
  power: 'power: sleep, wake and the sleep hook',
  settings: 'settings and secrets',
  berth: 'Berth itself',
} as const
export type Group = keyof typeof GROUPS

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>
  positionals: string[]
  /** what followed `--` (exec's command) */
  rest: string[]
}

export interface Io {
  json: boolean
  /** -q on a listing: ids only, one a line */
  quiet: boolean
  home: string
  /** the CLI's own script, to start a daemon with */
  entry: string
  client(): Promise<ControlClient>
}

export interface Command {
  path: string[]
  usage: string
  summary: string
  group: Group
  options?: Record<string, OptionSpec>
  /** the positional arguments, in order (help and completion); `positionals` says how many are required */
  args?: ArgSpec[]
  positionals: [min: number, max: number]
  /** true for verbs that take `-- CMD...` */
  rest?: boolean
  /** a listing: takes -q (ids only) */
  listing?: boolean
  /** false for the few verbs whose output is not JSON-able (serve's foreground, completion scripts) */
  json?: boolean
  run(p: Parsed, io: Io): Promise<number>
}

/** The flags every verb takes, besides its own. */
export function globalOptions(cmd: Command): Record<string, OptionSpec> {
  const g: Record<string, OptionSpec> = {}
  if (cmd.json !== false) g.json = { type: 'boolean', help: 'print the result as JSON (exact times, sizes and ids)' }
  if (cmd.listing) g.quiet = { type: 'boolean', short: 'q', help: 'print only the ids, one a line (for scripts)' }
  g.help = { type: 'boolean', short: 'h', help: 'show this help' }
  return g
}

export function allOptions(cmd: Command): Record<string, OptionSpec> {
  return { ...(cmd.options ?? {}), ...globalOptions(cmd) }
}

/** True when the words ask for help (before any `--`): the verb then needs none of its arguments. */
export function wantsHelp(argv: string[]): boolean {
  const dd = argv.indexOf('--')
  const words = dd >= 0 ? argv.slice(0, dd) : argv
  return words.includes('--help') || words.includes('-h')
}

export function parseCommand(cmd: Command, argv: string[]): Parsed {
  let rest: string[] = []
  let args = argv
  if (cmd.rest) {
    const dd = argv.indexOf('--')
    if (dd >= 0) {
      rest = argv.slice(dd + 1)
      args = argv.slice(0, dd)
    }
  }
  const options = Object.fromEntries(
    Object.entries(allOptions(cmd)).map(([k, o]) => [k, { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) }]),
  )
  let parsed
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (e) {
    throw new UsageError(simplify((e as Error).message), cmd.usage)
  }
  const positionals = parsed.positionals
  const [min, max] = cmd.positionals
  if (positionals.length < min) {
    const missing = (cmd.args ?? []).slice(positionals.length, min).map((a) => a.name)
    throw new UsageError(`missing ${missing.length ? missing.join(' ') : 'arguments'} for ${cmd.path.join(' ')}`, cmd.usage)
  }
  if (positionals.length > max) throw new UsageError(`unexpected argument: ${positionals[max]}`, cmd.usage)
  if (cmd.rest && rest.length === 0) throw new UsageError('missing the command to run after --', cmd.usage)
  return { values: parsed.values as Parsed['values'], positionals, rest }
}

function simplify(message: string): string {
  const m = /Unknown option '([^']+)'/.exec(message)
  if (m) return `unknown flag: ${m[1]}`
  const v = /Option '([^']+)' argument missing/.exec(message)
  if (v) return `the flag ${v[1]!.split(',').pop()!.trim().split(' ')[0]} needs a value`
  return message.split('\n')[0]!.replace(/\.$/, '')
}

export const str = (p: Parsed, key: string): string | undefined => p.values[key] as string | undefined
export const bool = (p: Parsed, key: string): boolean => p.values[key] === true
export const strs = (p: Parsed, key: string): string[] => (p.values[key] as string[] | undefined) ?? []
