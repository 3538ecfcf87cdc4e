// How the CLI prints: --json gives machine-readable output on stdout; errors are one sentence on
// stderr (or {"error":{code,message}} with --json) and the exit code follows the error's code.
// Everything printed for a person goes through forTerminal: names, images, notes and messages may
// carry text a session or an engine chose, and a terminal obeys the escape sequences in it (retitle
// the window, rewrite the screen, answer back). Only `berth exec` passes a session's bytes raw: that
// is the session's own terminal, as ssh gives it.
import { BerthError, exitCodeFor, toErrorBody } from '../shared/errors'
import type { Progress } from '../shared/models'
import { bytes } from '../shared/format'

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional overrides that reorder what a line shows. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
const CONTROLS_AND_NEWLINES = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
/** What JSON.stringify leaves raw and a terminal may still act on (C1, bidi); JSON's \u escape keeps the value. */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g

const shown = (c: string): string => {
  const n = c.charCodeAt(0)
  if (n === 0x0a) return '\\n'
  return n < 0x100 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`
}

/**
 * Text made harmless for a terminal: each control character is shown as \xNN (\u200f for the
 * bidirectional ones) instead of acting. `oneLine` also shows newlines as \n, for a value that must
 * stay on its line (a table cell, a field).
 */
export function forTerminal(text: string, opts: { oneLine?: boolean } = {}): string {
  return text.replace(opts.oneLine ? CONTROLS_AND_NEWLINES : CONTROLS, shown)
}

/** Prints a person's line (or lines) on stdout, made harmless. */
export function say(text: string): void {
  process.stdout.write(forTerminal(text))
}

/** The same on stderr. */
export function warn(text: string): void {
  process.stderr.write(forTerminal(text))
}

const jsonText = (value: unknown, indent?: number): string =>
  JSON.stringify(value, null, indent).replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

export class UsageError extends BerthError {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super('usage', message)
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(jsonText(value, 2) + '\n')
}

export function printTable(rows: string[][], header: string[]): void {
  const all = [header, ...rows].map((r) => r.map((c) => forTerminal(c, { oneLine: true })))
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)))
  for (const r of all) process.stdout.write(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ') + '\n')
}

export function printFields(fields: Array<[string, string | number | boolean | null | undefined]>): void {
  const width = Math.max(...fields.map(([k]) => k.length))
  // an empty key continues the field above (a list of values)
  for (const [k, v] of fields) if (v !== undefined) process.stdout.write(`${(k ? k + ':' : '').padEnd(width + 1)} ${forTerminal(String(v ?? '-'), { oneLine: true })}\n`)
}

export function fail(err: unknown, json: boolean): number {
  const body = toErrorBody(err)
  if (json) process.stdout.write(jsonText({ error: { code: body.code, message: body.message } }) + '\n')
  warn(`berth: ${body.message}\n`)
  if (err instanceof UsageError) warn(`usage: ${err.usage}\n`)
  return exitCodeFor(body.code)
}

/** Progress on stderr: a live line on a terminal, a line per stage otherwise. */
export function progressPrinter(): (p: Progress) => void {
  const tty = process.stderr.isTTY
  let lastStage = ''
  return (p) => {
    const pct = p.total ? ` ${Math.min(100, Math.round((p.bytes / p.total) * 100))}%` : ''
    const size = p.bytes ? ` ${bytes(p.bytes)}${p.total ? ` of ${bytes(p.total)}` : ''}` : ''
    const rate = p.rate ? ` ${bytes(p.rate)}/s` : ''
    const line = forTerminal(`${p.message}${pct}${size}${rate}`, { oneLine: true })
    if (tty) process.stderr.write(`\r\x1b[2K${line}${p.done ? '\n' : ''}`)
    else if (p.stage !== lastStage || p.done) process.stderr.write(line + '\n')
    lastStage = p.stage
  }
}

/** A listing under -q: the ids alone, one a line, for scripts. */
export function printIds(ids: string[]): void {
  for (const id of ids) process.stdout.write(`${id}\n`)
}
