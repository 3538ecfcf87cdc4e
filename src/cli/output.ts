// How the CLI prints: --json gives machine-readable output on stdout; errors are one sentence on
// stderr (or {"error":{code,message}} with --json) and the exit code follows the error's code.
import { BerthError, exitCodeFor, toErrorBody } from '../shared/errors'
import type { Progress } from '../shared/models'

export class UsageError extends BerthError {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super('usage', message)
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n')
}

export function printTable(rows: string[][], header: string[]): void {
  const all = [header, ...rows]
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)))
  for (const r of all) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ') + '\n')
}

export function printFields(fields: Array<[string, string | number | boolean | null | undefined]>): void {
  const width = Math.max(...fields.map(([k]) => k.length))
  // an empty key continues the field above (a list of values)
  for (const [k, v] of fields) if (v !== undefined) process.stdout.write(`${(k ? k + ':' : '').padEnd(width + 1)} ${v ?? '-'}\n`)
}

export function fail(err: unknown, json: boolean): number {
  const body = toErrorBody(err)
  if (json) process.stdout.write(JSON.stringify({ error: { code: body.code, message: body.message } }) + '\n')
  process.stderr.write(`berth: ${body.message}\n`)
  if (err instanceof UsageError) process.stderr.write(`usage: ${err.usage}\n`)
  return exitCodeFor(body.code)
}

const human = (n: number) =>
  n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${Math.round(n / 1024)} KiB`

/** Progress on stderr: a live line on a terminal, a line per stage otherwise. */
export function progressPrinter(): (p: Progress) => void {
  const tty = process.stderr.isTTY
  let lastStage = ''
  return (p) => {
    const pct = p.total ? ` ${Math.min(100, Math.round((p.bytes / p.total) * 100))}%` : ''
    const bytes = p.bytes ? ` ${human(p.bytes)}${p.total ? ` of ${human(p.total)}` : ''}` : ''
    const rate = p.rate ? ` ${human(p.rate)}/s` : ''
    const line = `${p.message}${pct}${bytes}${rate}`
    if (tty) process.stderr.write(`\r\x1b[2K${line}${p.done ? '\n' : ''}`)
    else if (p.stage !== lastStage || p.done) process.stderr.write(line + '\n')
    lastStage = p.stage
  }
}

export { human as humanBytes }

/** A listing under -q: the ids alone, one a line, for scripts. */
export function printIds(ids: string[]): void {
  for (const id of ids) process.stdout.write(`${id}\n`)
}
