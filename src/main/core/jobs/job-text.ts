// What job.sh prints, parsed into the contract's shapes. Everything here comes from inside a session
// (hostile): ids and numbers are checked, text is kept as text, sizes are bounded.
import type { z } from 'zod'
import { JobId, type Job, type LogCursor, type LogLine } from '../../../shared/contract/jobs'

const isoOf = (secs: string | undefined): string | null => {
  if (!secs || !/^\d{1,12}$/.test(secs)) return null
  return new Date(Number(secs) * 1000).toISOString()
}

/** A command as a shell would show it (for listings only: the job runs its argv as given). */
export function quoteCommand(cmd: string[]): string {
  return cmd.map((a) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

/** One line of `job.sh list`: ID STATE RC STARTED ENDED COMMAND, tab-separated. */
export function parseJobLine(line: string): Job | null {
  const [id, state, rc, started, ended, ...cmd] = line.split('\t')
  if (!id || !JobId.safeParse(id).success) return null
  if (state !== 'running' && state !== 'exited' && state !== 'lost') return null
  const code = rc && /^\d{1,3}$/.test(rc) ? Number(rc) : null
  return { id, state, exitCode: state === 'exited' ? code : null, startedAt: isoOf(started), endedAt: isoOf(ended), command: cmd.join(' ').slice(0, 2000) }
}

export interface LogRead {
  state: Job['state'] | null
  lines: Array<z.infer<typeof LogLine>>
  cursor: z.infer<typeof LogCursor>
  more: boolean
  skipped: boolean
}

/** `job.sh read`: "key value" lines, "--", then the log's bytes from the cursor. */
export function parseLogRead(out: Buffer, asked: z.infer<typeof LogCursor>, maxBytes = 256 * 1024): LogRead {
  const sep = out.indexOf('\n--\n')
  const head = new Map<string, string>()
  for (const l of out.subarray(0, sep < 0 ? out.length : sep).toString('utf8').split('\n')) {
    const sp = l.indexOf(' ')
    if (sp > 0) head.set(l.slice(0, sp), l.slice(sp + 1))
  }
  const data = sep < 0 ? Buffer.alloc(0) : out.subarray(sep + 4)
  const num = (k: string) => {
    const v = head.get(k)
    return v && /^\d{1,15}$/.test(v) ? Number(v) : 0
  }
  const st = head.get('state')
  const state = st === 'running' || st === 'exited' || st === 'lost' ? st : null
  const gen = num('gen')
  const current = num('current')
  const offset = num('offset')
  const size = num('size')
  const previous = head.get('file') === 'log.1'
  // whole lines only while the job may still be writing the last one
  let used = data.lastIndexOf(0x0a) + 1
  const ended = state !== 'running'
  if ((ended && !previous) || (used === 0 && data.length >= maxBytes)) used = data.length
  const lines: Array<z.infer<typeof LogLine>> = []
  for (const raw of data.subarray(0, used).toString('utf8').split('\n')) {
    if (raw === '') continue
    const m = /^(\d{1,12}) (.*)$/s.exec(raw)
    lines.push(m ? { at: isoOf(m[1]), text: m[2]! } : { at: null, text: raw })
  }
  let cursor = { gen, offset: offset + used }
  let more = offset + used < size
  if (previous && !more) {
    cursor = { gen: current, offset: 0 }
    more = true
  }
  // the script starts over from the current file when what was asked for rotated away
  const skipped = gen !== asked.gen || offset !== asked.offset
  return { state, lines, cursor, more, skipped }
}
