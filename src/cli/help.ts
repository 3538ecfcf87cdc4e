// The help text, all of it read from the Command objects: `berth --help` (every verb, by group),
// `berth GROUP --help` (a group's verbs), `berth VERB --help` and `berth help TOPIC`.
import { VERSION } from '../main/core/version'
import { allOptions, GROUPS, type Command, type Group, type OptionSpec } from './command'

export const EXIT_CODES = 'exit codes: 0 ok, 1 error, 2 usage, 3 not found, 4 server unreachable or refused'

const line = (left: string, right: string, width: number) => `  ${left.padEnd(width)}  ${right}`

function flagLabel(name: string, o: OptionSpec): string {
  const long = `--${name}${o.type === 'string' ? ` ${o.value ?? 'VALUE'}` : ''}`
  return `${o.short ? `-${o.short}, ` : '    '}${long}${o.multiple ? '...' : ''}`
}

export function commandHelp(cmd: Command): string {
  const usages = cmd.usage.split(/\s{2,}\|\s{2,}/)
  const out = [`usage: ${usages[0]}`, ...usages.slice(1).map((u) => `       ${u}`), '', cmd.summary]
  const args = cmd.args ?? []
  const opts = Object.entries(allOptions(cmd))
  const width = Math.max(...args.map((a) => a.name.length), ...opts.map(([n, o]) => flagLabel(n, o).length))
  if (args.length) out.push('', 'arguments:', ...args.map((a) => line(a.name, a.help, width)))
  out.push('', 'flags:', ...opts.map(([n, o]) => line(flagLabel(n, o), o.help, width)))
  return out.join('\n') + '\n'
}

const verbOf = (c: Command) => c.path.join(' ')

function groupLines(cmds: Command[], width: number): string[] {
  return cmds.map((c) => line(verbOf(c), c.summary, width))
}

export function topHelp(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => verbOf(c).length))
  const out = [
    `berth ${VERSION}: sandbox sessions on your laptop and your servers`,
    '',
    'usage: berth VERB [ARGUMENTS] [FLAGS]      berth help VERB (or berth VERB --help) for its flags',
  ]
  for (const g of Object.keys(GROUPS) as Group[]) {
    const cmds = commands.filter((c) => c.group === g)
    if (cmds.length) out.push('', `${GROUPS[g]}:`, ...groupLines(cmds, width))
  }
  out.push(
    '',
    'every verb takes --json (machine-readable, exact) and -h/--help; listings take -q (ids only).',
    'IDs: a session is named by its id, its name or its route; a snapshot by NAME:vN or NAME (its newest).',
    EXIT_CODES,
  )
  return out.join('\n') + '\n'
}

/** The verbs under a first word (`berth session --help`), or of a group (`berth help pause`). */
export function listHelp(title: string, cmds: Command[], footer = true): string {
  const width = Math.max(...cmds.map((c) => verbOf(c).length))
  return [`${title}:`, ...groupLines(cmds, width), ...(footer ? ['', 'berth help VERB (or berth VERB --help) for its flags'] : [])].join('\n') + '\n'
}

/** `berth VERB --help`: the verb's own help, and the verbs under it (settings: settings set). */
export function verbHelp(commands: Command[], cmd: Command): string {
  const under = commands.filter((c) => c !== cmd && c.path.length > cmd.path.length && cmd.path.every((w, i) => c.path[i] === w))
  return commandHelp(cmd) + (under.length ? '\n' + listHelp(`berth ${verbOf(cmd)} also has`, under, false) : '')
}

/**
 * `berth help WORDS...`: the verb they name, else the verbs under those words, else a group's.
 * Undefined when the topic is unknown.
 */
export function helpFor(commands: Command[], words: string[]): string | undefined {
  if (words.length === 0) return topHelp(commands)
  const exact = commands.find((c) => c.path.length === words.length && c.path.every((w, i) => w === words[i]))
  const under = commands.filter((c) => c !== exact && words.every((w, i) => c.path[i] === w))
  const group = words.length === 1 && words[0]! in GROUPS ? (words[0] as Group) : undefined
  const parts: string[] = []
  const shown = new Set([exact, ...under])
  const rest = group ? commands.filter((c) => c.group === group && !shown.has(c)) : []
  if (exact) parts.push(commandHelp(exact))
  if (under.length) parts.push(listHelp(`berth ${words.join(' ')}`, under, !rest.length))
  if (rest.length) parts.push(listHelp(exact || under.length ? `see also (${GROUPS[group!]})` : GROUPS[group!], rest))
  if (words.length === 1 && words[0] === 'exit-codes') parts.push(EXIT_CODES + '\n')
  return parts.length ? parts.join('\n') : undefined
}
