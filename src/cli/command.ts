// A CLI verb: its usage line, its flags, and what it does. Every verb is a contract call.
import { parseArgs } from 'node:util'
import type { ControlClient } from './client'
import { UsageError } from './output'

export type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string }

export interface Parsed {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>
  positionals: string[]
  /** what followed `--` (exec's command) */
  rest: string[]
}

export interface Io {
  json: boolean
  home: string
  /** the CLI's own script, to start a daemon with */
  entry: string
  client(): Promise<ControlClient>
}

export interface Command {
  path: string[]
  usage: string
  summary: string
  options?: Record<string, OptionSpec>
  positionals: [min: number, max: number]
  /** true for verbs that take `-- CMD...` */
  rest?: boolean
  run(p: Parsed, io: Io): Promise<number>
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
  let parsed
  try {
    parsed = parseArgs({
      args,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...(cmd.options ?? {}) },
      allowPositionals: true,
      strict: true,
    })
  } catch (e) {
    throw new UsageError(simplify((e as Error).message), cmd.usage)
  }
  const positionals = parsed.positionals
  const [min, max] = cmd.positionals
  if (positionals.length < min) throw new UsageError(`missing arguments for ${cmd.path.join(' ')}`, cmd.usage)
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
