// Detached jobs: `berth exec --detach` starts one; jobs, logs and kill follow it through pauses,
// resumes and moves (it runs inside the session's own process tree).
import type { Job } from '../../shared/contract'
import { BerthError } from '../../shared/errors'
import { bool, str, type Command } from '../command'
import { printJson, printTable, say, UsageError } from '../output'
import { ago } from '../../shared/format'

const LOGS_USAGE = 'berth logs ID JOB [--follow] [--since T] [--json]'
const KILL_USAGE = 'berth kill ID JOB [--signal S] [--json]'
const SIGNALS = ['TERM', 'INT', 'HUP', 'KILL', 'QUIT', 'USR1', 'USR2', 'STOP', 'CONT'] as const
type Signal = (typeof SIGNALS)[number]

const sessionArg = { name: 'ID', help: 'the session: its id, name or route', complete: 'session' } as const
const jobArg = { name: 'JOB', help: 'the job id `berth exec --detach` printed (berth jobs ID lists them)' }

export function jobState(j: Job): string {
  if (j.state === 'exited') return j.exitCode === null ? 'exited' : `exited ${j.exitCode}`
  return j.state
}

/** --since: an ISO time, or a span back from now (90s, 10m, 2h, 1d). */
export function parseSince(raw: string, now = Date.now()): string {
  const m = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(raw)
  if (m) return new Date(now - Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'] * 1000).toISOString()
  const t = Date.parse(raw)
  if (Number.isNaN(t)) throw new UsageError(`not a time: ${raw} (an ISO time, or 90s, 10m, 2h, 1d back from now)`, LOGS_USAGE)
  return new Date(t).toISOString()
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
/** While following, a session that pauses, resumes or moves is waited for; its log goes on after. */
const WAITABLE = new Set(['conflict', 'unreachable'])

export const jobCommands: Command[] = [
  {
    path: ['jobs'],
    usage: 'berth jobs ID [--json]',
    summary: "list a session's detached jobs (id, command, state, exit code, started, ended)",
    group: 'sessions',
    listing: true,
    args: [sessionArg],
    positionals: [1, 1],
    async run(p, io) {
      const c = await io.client()
      const jobs = await c.call('job.list', { id: p.positionals[0]! })
      if (io.json) printJson(jobs)
      else if (io.quiet) for (const j of jobs) say(`${j.id}\n`)
      else if (jobs.length === 0) say('no jobs (berth exec --detach ID -- CMD starts one)\n')
      else printTable(jobs.map((j) => [j.id, jobState(j), j.startedAt ? ago(j.startedAt) : '-', j.endedAt ? ago(j.endedAt) : '-', j.command]), ['JOB', 'STATE', 'STARTED', 'ENDED', 'COMMAND'])
      return 0
    },
  },
  {
    path: ['logs'],
    usage: LOGS_USAGE,
    summary: "print a detached job's output (kept in a bounded log inside the session); --follow streams it, across pauses and resumes",
    group: 'sessions',
    options: {
      follow: { type: 'boolean', short: 'f', help: 'keep printing new output until the job ends (waits out a pause or a move)' },
      since: { type: 'string', value: 'T', help: 'only output written since T: an ISO time, or 90s, 10m, 2h, 1d back from now' },
    },
    args: [sessionArg, jobArg],
    positionals: [2, 2],
    async run(p, io) {
      const [id, job] = [p.positionals[0]!, p.positionals[1]!]
      const raw = str(p, 'since')
      const since = raw === undefined ? undefined : parseSince(raw)
      const follow = bool(p, 'follow')
      const c = await io.client()
      let cursor: { gen: number; offset: number } | undefined
      const collected: Array<{ at: string | null; text: string }> = []
      let last: Job | undefined
      for (;;) {
        let r
        try {
          r = await c.call('job.logs', { id, job, cursor, since })
        } catch (e) {
          if (follow && e instanceof BerthError && WAITABLE.has(e.code)) {
            await sleep(1000)
            continue
          }
          throw e
        }
        last = r.job
        if (r.skipped && cursor && !io.json) say('[berth: older output rotated out of the job\'s log before it was read]\n')
        for (const l of r.lines) {
          if (io.json && follow) printJson(l)
          else if (io.json) collected.push(l)
          else say(`${l.text}\n`)
        }
        cursor = r.cursor
        if (r.more) continue
        if (!follow || r.job.state !== 'running') break
        await sleep(500)
      }
      if (io.json && !follow) printJson({ job: last, lines: collected })
      return 0
    },
  },
  {
    path: ['kill'],
    usage: KILL_USAGE,
    summary: "signal a detached job's processes (TERM unless told); its exit code is kept",
    group: 'sessions',
    options: { signal: { type: 'string', short: 's', value: 'S', help: `the signal: ${SIGNALS.join(', ')} (default TERM)`, complete: SIGNALS } },
    args: [sessionArg, jobArg],
    positionals: [2, 2],
    async run(p, io) {
      const raw = (str(p, 'signal') ?? 'TERM').toUpperCase().replace(/^SIG/, '')
      if (!(SIGNALS as readonly string[]).includes(raw)) throw new UsageError(`not a signal: ${str(p, 'signal')} (${SIGNALS.join(', ')})`, KILL_USAGE)
      const c = await io.client()
      const r = await c.call('job.kill', { id: p.positionals[0]!, job: p.positionals[1]!, signal: raw as Signal })
      if (io.json) printJson(r)
      else say(r.signalled ? `sent ${raw} to job ${r.job.id}\n` : `job ${r.job.id} is ${jobState(r.job)}: nothing to signal\n`)
      return 0
    },
  },
]
