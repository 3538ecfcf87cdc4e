import { randomBytes } from 'node:crypto'
import { LIMIT_OPTIONS, limitsLine, parseLimits } from './session-limits'
import type { PauseResult, ResumeResult } from '../../shared/contract'
import type { MoveResult } from '../../shared/contract/snapshots'
import type { z } from 'zod'
import { exitCodeFor } from '../../shared/errors'
import type { EventRecord } from '../../shared/models'
import type { ControlClient } from '../../main/doors/control-client'
import { bool, str, type Command, type Parsed } from '../command'
import { printJson, printTable, progressPrinter, say, UsageError, warn } from '../output'
import { bytes, millis, when } from '../../shared/format'

const PAUSE_USAGE = 'berth pause ID [--wait] [--deadline SECONDS] [--no-memory] [--json]  |  berth pause --all [--wait] [--deadline SECONDS] [--json]'

const secs = millis

export function describePause(name: string, r: PauseResult): string {
  if (!r.paused) return `session ${name} is already paused`
  const kept =
    r.mode === 'memory' ? 'memory and files kept' : r.mode === 'frozen' ? (r.pending ? 'frozen: memory kept in RAM, files durable' : 'frozen in memory on its server, files committed') : 'files kept; it will cold-boot'
  const state = r.durable ? 'durable' : r.pending ? 'its memory checkpoint is written later' : 'becoming durable in the background'
  const lines = [`session ${name} paused (${r.mode}: ${kept}) in ${secs(r.ms)}, ${state}; snapshot ${r.snapshot}`]
  if (r.fallback) lines.push(`  ${r.pending ? 'memory not written yet' : 'not paused with memory'}: ${r.fallback}`)
  return lines.join('\n')
}

/** What one session of `pause --all` ended in, in a table cell. */
export function pauseOutcome(x: { result?: PauseResult | undefined; error?: { message: string } | undefined }): string {
  if (x.error) return `still running: ${x.error.message}`
  const r = x.result
  if (!r?.paused) return 'already paused'
  if (r.durable) return r.mode === 'memory' ? 'durable with memory' : r.mode === 'disk' ? `durable on disk${r.fallback ? ` (${r.fallback})` : ''}` : `frozen, files durable${r.fallback ? ` (${r.fallback})` : ''}`
  return `frozen, memory kept but not durable yet${r.fallback ? ` (${r.fallback})` : ''}`
}

/** Whether every session of a `pause --all` is durable (the sleep automation's exit code 0). */
export const allDurable = (results: Array<{ result?: PauseResult | undefined; error?: unknown }>) =>
  results.every((x) => !x.error && x.result && (!x.result.paused || x.result.durable))

const deadlineOf = (p: Parsed, usage: string): number | undefined => {
  const d = str(p, 'deadline')
  if (d === undefined) return undefined
  const n = Number(d)
  if (!/^\d+(\.\d+)?$/.test(d) || n < 1 || n > 3600) throw new UsageError(`--deadline takes seconds between 1 and 3600, not ${d}`, usage)
  return n
}

/** Printing the answer and exiting, kept out of the core's share of a --deadline. */
const EXIT_SECONDS = 0.2

/**
 * The deadline counts from when this command started, as the sleep hook's window does: the time
 * the process took to start and reach the core (seconds on a busy laptop) is not the core's to spend.
 */
const leftOf = (deadline: number): number => Math.max(1, Math.round((deadline - process.uptime() - EXIT_SECONDS) * 1000) / 1000)

export function describeResume(name: string, r: ResumeResult): string {
  if (!r.resumed) return `session ${name} is already running`
  const how = r.mode === 'memory' ? (r.lazy ? 'its processes continued, memory arriving as it is touched' : 'its processes continued') : r.mode === 'frozen' ? 'thawed' : 'cold boot from its files'
  const lines = [`session ${name} resumed (${how}) in ${secs(r.ms)}`]
  if (r.fallback) lines.push(`  memory did not come back: ${r.fallback}`)
  if (r.note) lines.push(`  ${r.note}`)
  return lines.join('\n')
}

export function describeMove(name: string, m: z.infer<typeof MoveResult>): string {
  const how = m.memory ? 'its processes continued' : 'it booted from its files'
  const layers = m.layersSent ? `${m.layersSent} image layer${m.layersSent === 1 ? '' : 's'} sent, ` : ''
  return `session ${name} moved from ${m.from} to ${m.to} and ${m.resumed ? 'runs' : 'is paused'} there (${how}): ${layers}${m.layersSkipped} already there, ${bytes(m.bytes)} sent in ${secs(m.seconds * 1000)}${m.note ? `\n  ${m.note}` : ''}`
}

async function withProgress(io: { json: boolean; client(): Promise<ControlClient> }): Promise<{ c: ControlClient; op: string }> {
  const c = await io.client()
  const op = randomBytes(6).toString('hex')
  if (!io.json) {
    await c.call('events.subscribe', { names: ['progress'] })
    const print = progressPrinter()
    c.on('progress', (pr) => pr.op === op && !pr.done && print(pr))
  }
  return { c, op }
}

export const pauseCommands: Command[] = [
  {
    path: ['pause'],
    usage: PAUSE_USAGE,
    summary: 'pause a session (with its memory when the server can), or every running session with --all',
    group: 'pause',
    options: {
      all: { type: 'boolean', help: 'pause every running session (what the lid-close path runs)' },
      wait: { type: 'boolean', help: 'return only once each pause is durable (safe to close the lid); exit 5 if one is not by the deadline' },
      deadline: { type: 'string', value: 'SECONDS', help: 'the pause is over by then: memory if it fits, else disk (one session; default: the pauseDeadlineSeconds setting, else 120 s) or frozen, memory written later (--all; default: the sleep window)' },
      'no-memory': { type: 'boolean', help: 'keep only the files: the session cold-boots on resume' },
    },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [0, 1],
    async run(p, io) {
      const all = bool(p, 'all')
      const id = p.positionals[0]
      if (all && id) throw new UsageError('pass either an ID or --all, not both', PAUSE_USAGE)
      if (!all && !id) throw new UsageError('missing the session to pause (an ID, or --all)', PAUSE_USAGE)
      const deadline = deadlineOf(p, PAUSE_USAGE)
      const { c, op } = await withProgress(io)
      const deadlineSeconds = deadline === undefined ? undefined : leftOf(deadline)
      const memory = bool(p, 'no-memory') ? false : undefined
      if (!all) {
        const r = await c.call('session.pause', { id: id!, wait: bool(p, 'wait'), memory, deadlineSeconds, op })
        if (io.json) printJson(r)
        else say(describePause(id!, r) + '\n')
        // with --wait, 0 only for a durable pause
        return bool(p, 'wait') && r.paused && !r.durable ? 5 : 0
      }
      const r = await c.call('session.pauseAll', { wait: bool(p, 'wait'), memory, deadlineSeconds, op })
      const failed = r.results.filter((x) => x.error)
      if (io.json) printJson(r)
      else if (r.results.length === 0) say('no running sessions to pause\n')
      else {
        printTable(
          r.results.map((x) => [x.id, x.name, x.server, pauseOutcome(x)]),
          ['ID', 'NAME', 'SERVER', 'OUTCOME'],
        )
        const frozen = r.frozenMs === null ? 'not every session was frozen' : `all frozen with their files durable after ${secs(r.frozenMs)}`
        const durable = r.durableMs === null ? 'not every pause is durable yet' : `all durable after ${secs(r.durableMs)}`
        process.stdout.write(`${frozen}; ${durable} (deadline ${secs(r.deadlineMs)}, answered after ${secs(r.ms)})\n`)
      }
      if (failed.length) {
        if (!io.json) warn(`berth: ${failed.length} of ${r.results.length} sessions could not be paused\n`)
        return Math.max(...failed.map((x) => exitCodeFor(x.error!.code)), 1)
      }
      // --wait: 0 only when every session is durable (5: some are frozen, their memory not written yet)
      return bool(p, 'wait') && !allDurable(r.results) ? 5 : 0
    },
  },
  {
    path: ['resume'],
    usage: 'berth resume ID [--on SERVER] [--json]',
    summary: 'resume a paused session on its server, or --on another one (its memory, files and route travel along)',
    group: 'pause',
    options: { on: { type: 'string', value: 'SERVER', help: 'resume it on this server instead (moves it there first; when its server does not answer within 3 s, from its replica there)', complete: 'server' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const { c, op } = await withProgress(io)
      const on = str(p, 'on')
      if (on) {
        // from its server, or from its replica there when its server does not answer within 3 s
        const m = await c.call('session.resumeOn', { id: p.positionals[0]!, to: on, op })
        if (io.json) printJson(m)
        else if (m.fromReplica) say(`session ${p.positionals[0]!} runs on ${m.to} from its replica (${m.from} did not answer)${m.memory ? ' with its memory' : ''}: ${m.lost ? `lost: ${m.lost}` : 'nothing was lost'}\n`)
        else say(describeMove(p.positionals[0]!, m) + '\n')
        return 0
      }
      const r = await c.call('session.resume', { id: p.positionals[0]!, op })
      if (io.json) printJson(r)
      else say(describeResume(p.positionals[0]!, r) + '\n')
      return 0
    },
  },
  {
    path: ['session', 'set'],
    usage: 'berth session set ID [--idle SECONDS|default|off] [--auto-pause on|off] [--cpus N] [--memory SIZE] [--pids N] [--replicate-to none|local|SERVER|default] [--json]',
    summary: 'change a session: when it pauses itself (idle time, auto-pause), its limits (a running one\'s at once) and where it keeps its replica',
    group: 'pause',
    options: {
      idle: { type: 'string', value: 'SECONDS|default|off', help: 'idle time before it pauses itself (default: the idleAfterSeconds setting)', complete: ['default', 'off', '600', '3600'] },
      'auto-pause': { type: 'string', value: 'on|off', help: 'whether idle auto-pause and the "marked" sleep policy apply to it', complete: ['on', 'off'] },
      ...LIMIT_OPTIONS,
      'replicate-to': { type: 'string', value: 'none|local|SERVER|default', help: 'where it keeps a copy of its last pause or seal (default: the replicateTo setting)', complete: 'server' },
    },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const usage = this.usage
      const idle = str(p, 'idle')
      const auto = str(p, 'auto-pause')
      const limits = parseLimits(p, usage)
      const replicateTo = str(p, 'replicate-to')
      if (idle === undefined && auto === undefined && !limits && replicateTo === undefined) throw new UsageError('nothing to set: pass --idle, --auto-pause, --cpus, --memory, --pids or --replicate-to', usage)
      let idleAfterSeconds: number | null | undefined
      if (idle !== undefined) {
        if (idle === 'default') idleAfterSeconds = null
        else if (idle === 'off') idleAfterSeconds = 0
        else if (/^\d+$/.test(idle)) idleAfterSeconds = Number(idle)
        else throw new UsageError(`not an idle time: ${idle} (seconds, default or off)`, usage)
      }
      if (auto !== undefined && auto !== 'on' && auto !== 'off') throw new UsageError(`--auto-pause takes on or off, not ${auto}`, usage)
      const c = await io.client()
      const lines: string[] = []
      let s
      if (idle !== undefined || auto !== undefined) {
        s = await c.call('session.configure', {
          id: p.positionals[0]!,
          idleAfterSeconds,
          autoPause: auto === undefined ? undefined : auto === 'on',
        })
        lines.push(`session ${s.name}: ${s.activity?.status ?? 'updated'}`)
      }
      if (limits) {
        s = await c.call('session.set', { id: p.positionals[0]!, limits })
        lines.push(`limits of ${s.name}: ${limitsLine(s.limits)}${s.state === 'running' ? '' : ' (from its next start)'}`)
      }
      if (replicateTo !== undefined) {
        s = await c.call('replica.target', { id: p.positionals[0]!, to: replicateTo })
        lines.push(`session ${s.name}: replica target ${replicateTo}`)
      }
      if (io.json) printJson(s)
      else say(`${lines.join('\n')}\n`)
      return 0
    },
  },
  {
    path: ['session', 'events'],
    usage: 'berth session events ID [--limit N] [--json]',
    summary: "a session's events log: every state change and what happened, oldest first",
    group: 'sessions',
    options: { limit: { type: 'string', value: 'N', help: 'the newest N events (default 200)' } },
    args: [{ name: 'ID', help: 'the session: its id, name or route', complete: 'session' }],
    positionals: [1, 1],
    async run(p, io) {
      const limit = str(p, 'limit')
      if (limit !== undefined && !/^\d+$/.test(limit)) throw new UsageError(`not a number: ${limit}`, this.usage)
      const list = await (await io.client()).call('session.events', { id: p.positionals[0]!, limit: limit ? Number(limit) : undefined })
      if (io.json) printJson(list)
      else printTable(list.map((e: EventRecord) => [when(e.at), e.kind, e.from && e.to ? `${e.from} -> ${e.to}` : '', summarize(e.detail)]), ['AT', 'KIND', 'STATE', 'DETAIL'])
      return 0
    },
  },
  {
    path: ['server', 'checkpoint'],
    usage: 'berth server checkpoint NAME auto|fast|docker|off [--json]',
    summary: 'choose how a server keeps memory on pause (off: pauses freeze instead)',
    group: 'servers',
    args: [
      { name: 'NAME', help: 'the server', complete: 'server' },
      { name: 'HOW', help: 'auto (the best found), fast (CRIU through containerd), docker (Docker\'s checkpoint API) or off', complete: ['auto', 'fast', 'docker', 'off'] },
    ],
    positionals: [2, 2],
    async run(p, io) {
      const [name, how] = p.positionals as [string, string]
      if (!['auto', 'fast', 'docker', 'off'].includes(how)) throw new UsageError(`not a checkpoint setting: ${how}`, this.usage)
      const s = await (await io.client()).call('server.setCheckpoint', { name, checkpoint: how as 'auto' | 'fast' | 'docker' | 'off' })
      if (io.json) printJson(s)
      else say(`server ${s.name}: memory checkpoints ${how === 'off' ? 'off (pauses freeze instead)' : how}\n`)
      return 0
    },
  },
]

function summarize(detail: Record<string, unknown>): string {
  const parts: string[] = []
  for (const [k, v] of Object.entries(detail)) {
    if (v === null || v === undefined || k === 'stages') continue
    parts.push(`${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
  }
  return parts.join(' ').slice(0, 200)
}
