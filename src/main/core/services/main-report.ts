// Reading the supervisor's status file and saying what happened to the image's main process. The
// file is in the session's own /tmp, so it is untrusted text: only lines of the exact form count,
// numbers bounded; the output lines shown beside it are cut and rid of control characters.
import { formatSize } from '../../../shared/sizes'
import type { RestartPolicy } from '../../../shared/models'

export interface MainExit {
  code: number
  /** seconds since the epoch, as the session's clock said */
  at: number
  /** the kernel's out-of-memory kills in the session so far */
  oomKills: number
}

export interface MainStatus {
  exits: MainExit[]
  /** the policy gave up: the supervisor keeps the session up without it */
  stopped: boolean
}

const EXIT = /^exit (\d{1,3}) (\d{1,12}) (\d{1,12})$/
const MAX_LINES = 10_000

export function parseMainStatus(text: string): MainStatus {
  const exits: MainExit[] = []
  let stopped = false
  for (const line of text.split('\n').slice(0, MAX_LINES)) {
    const m = EXIT.exec(line)
    if (m) exits.push({ code: Number(m[1]), at: Number(m[2]), oomKills: Number(m[3]) })
    else if (line === 'stopped') stopped = true
  }
  return { exits, stopped }
}

/** The last lines of output, as safe to print: at most `count` lines of at most 200 characters. */
export function lastLines(text: string, count = 5): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').slice(0, 200))
    .filter((l) => l.trim() !== '')
    .slice(-count)
}

export interface ExitFacts {
  command: string[]
  code: number
  /** the kernel killed it for memory (an out-of-memory kill came with this exit) */
  outOfMemory: boolean
  memoryLimit: number | undefined
  restart: RestartPolicy
  /** the supervisor restarts it (the policy said so) */
  restarted: boolean
}

/** One sentence a person reads: what stopped, why, and what Berth did about it. */
export function exitSentence(f: ExitFacts): string {
  const what = `the main process (${shortCommand(f.command)})`
  const why = f.outOfMemory
    ? `was killed by the kernel for using more than the session's memory${f.memoryLimit ? ` limit of ${formatSize(f.memoryLimit)}` : ''} (exit code ${f.code})`
    : `stopped by itself with exit code ${f.code}`
  const next = f.restarted ? `; restarted by the ${f.restart} policy` : f.restart === 'no' ? '; not restarted (--restart no)' : '; not restarted'
  return `${what} ${why}${next}.`
}

function shortCommand(argv: string[]): string {
  const text = argv.join(' ').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
  return text.length > 60 ? `${text.slice(0, 57)}...` : text
}
