// The line protocol between the server script (./sh/*.sh) and the core, defined once. A job
// writes status lines to its status file and the core follows them; attached commands print
// "key value" lines. What a pause ended in is decided on the server (it knows what it did) and read
// here through one schema, so the two sides never each decide.
//
//   stage NAME MS [ARG]    a step reached, MS after the job started (pause: begin, frozen, stopped
//                          MODE, durable; resume: begin, running)
//   note TEXT              something the user should hear (an exec Berth thawed, a retry)
//   fallback WHY           why a lesser mode than asked for was used
//   metric NAME VALUE...   a measurement (dump MS BYTES: one memory dump; expect BYTES: what a dump is about to write)
//   written BYTES          how far the step under way has got: the bytes a memory dump has written so
//                          far (its images folder, sampled while CRIU writes). For display only: the
//                          figure grows with what the session holds, so nothing else is decided by it
//   result JSON            the job's outcome (PauseJobResult, ResumeJobResult)
//   error TEXT             why the job failed
//   rc N | rc lost | rc missing   the job's end: its exit code, or that it died unfinished or never was
import { z } from 'zod'

export type JobLine =
  | { kind: 'stage'; stage: string; ms: number; arg: string | undefined }
  | { kind: 'note'; text: string }
  | { kind: 'fallback'; text: string }
  | { kind: 'metric'; name: string; values: number[] }
  | { kind: 'written'; bytes: number }
  | { kind: 'result'; value: Record<string, unknown> }
  | { kind: 'error'; text: string }
  | { kind: 'rc'; rc: number | null; gone: 'missing' | 'lost' | undefined }

/** Longer lines are cut: nothing a server prints grows the core's memory without bound. */
export const MAX_LINE = 16_384

export function parseJobLine(raw: string): JobLine | undefined {
  const line = raw.length > MAX_LINE ? raw.slice(0, MAX_LINE) : raw
  const sp = line.indexOf(' ')
  const head = sp < 0 ? line : line.slice(0, sp)
  const rest = sp < 0 ? '' : line.slice(sp + 1)
  switch (head) {
    case 'stage': {
      const [stage, ms, arg] = rest.split(' ')
      return stage ? { kind: 'stage', stage, ms: Number(ms) || 0, arg } : undefined
    }
    case 'note':
      return { kind: 'note', text: rest }
    case 'fallback':
      return { kind: 'fallback', text: rest }
    case 'error':
      return { kind: 'error', text: rest }
    case 'metric': {
      const [name, ...values] = rest.split(' ')
      const nums = values.map(Number)
      return name && nums.every(Number.isFinite) ? { kind: 'metric', name, values: nums } : undefined
    }
    case 'written': {
      const v = rest.trim()
      return /^\d{1,15}$/.test(v) ? { kind: 'written', bytes: Number(v) } : undefined
    }
    case 'result':
      try {
        const value = JSON.parse(rest) as unknown
        if (value && typeof value === 'object' && !Array.isArray(value)) return { kind: 'result', value: value as Record<string, unknown> }
      } catch {
        // reported below
      }
      return { kind: 'error', text: `the server answered with a malformed result: ${rest.slice(0, 200)}` }
    case 'rc': {
      const v = rest.trim()
      if (v === 'missing' || v === 'lost') return { kind: 'rc', rc: null, gone: v }
      return /^\d+$/.test(v) ? { kind: 'rc', rc: Number(v), gone: undefined } : undefined
    }
    default:
      return undefined
  }
}

export interface JobOutcome {
  /** false: we lost sight of the job (the connection dropped); it may still be running on the server */
  followed: boolean
  /** the job's exit code; null when the job died without finishing (a reboot) or never existed */
  rc: number | null
  /** 'missing': no such job on the server; 'lost': it stopped without finishing */
  gone?: 'missing' | 'lost' | undefined
  result: Record<string, unknown> | undefined
  error: string | undefined
  notes: string[]
  fallback: string | undefined
  stages: Record<string, number>
  metrics: Array<{ name: string; values: number[] }>
  /** status lines seen so far: following again from here skips nothing and repeats nothing */
  lines: number
  /** why following stopped, when followed is false */
  reason?: string | undefined
}

export function emptyOutcome(lines = 0): JobOutcome {
  return { followed: false, rc: null, result: undefined, error: undefined, notes: [], fallback: undefined, stages: {}, metrics: [], lines }
}

/** Folds one status line into what is known of the job; true once the job's end ("rc") was seen. */
export function takeLine(o: JobOutcome, l: JobLine): boolean {
  switch (l.kind) {
    case 'rc':
      o.rc = l.rc
      o.gone = l.gone
      return true
    case 'stage':
      o.stages[l.stage] = l.ms
      break
    case 'note':
      o.notes.push(l.text)
      break
    case 'fallback':
      o.fallback = l.text
      break
    case 'metric':
      o.metrics.push({ name: l.name, values: l.values })
      break
    case 'result':
      o.result = l.value
      break
    case 'error':
      o.error = l.text
      break
  }
  o.lines++
  return false
}

/** A later stretch of following (after a reconnect) continues an earlier one. */
export function mergeOutcomes(a: JobOutcome, b: JobOutcome): JobOutcome {
  return {
    followed: b.followed,
    rc: b.rc,
    gone: b.gone,
    result: b.result ?? a.result,
    error: b.error ?? a.error,
    notes: [...a.notes, ...b.notes],
    fallback: b.fallback ?? a.fallback,
    stages: { ...a.stages, ...b.stages },
    metrics: [...a.metrics, ...b.metrics],
    lines: b.lines,
    reason: b.reason,
  }
}

/** "key value" lines of an attached command, each key with all its values in order. */
export function parseFields(stdout: string): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const line of stdout.split('\n')) {
    const sp = line.indexOf(' ')
    if (sp <= 0) continue
    const k = line.slice(0, sp)
    out.set(k, [...(out.get(k) ?? []), line.slice(sp + 1)])
  }
  return out
}

const text = z.string().max(2000)

/** How a pause job ended, as the server decided it. */
export const PauseJobResult = z.object({
  mode: z.enum(['memory', 'frozen', 'disk']),
  checkpoint: text.optional(),
  layout: z.enum(['split', 'docker', '']).optional(),
  bytes: z.number().nonnegative().optional(),
  image: text.optional(),
  fallback: text.optional(),
  /** a frozen session whose memory checkpoint is still to be written (the window closed first) */
  pending: z.literal('memory').optional(),
  /** a memory dump was tried and failed (ended past its time, or CRIU failed) */
  memoryFailed: z.boolean().optional(),
})
export type PauseJobResult = z.infer<typeof PauseJobResult>

/** How a resume job ended: the mode the session came back in ('none': it was running already). */
export const ResumeJobResult = z.object({
  mode: z.enum(['memory', 'frozen', 'disk', 'none']),
  fallback: text.optional(),
  already: z.boolean().optional(),
})
export type ResumeJobResult = z.infer<typeof ResumeJobResult>

/** The job's result read through its schema; a result of another shape is the server's error. */
export function jobResult<T>(schema: z.ZodType<T>, o: JobOutcome): { value: T } | { error: string } | undefined {
  if (!o.result) return undefined
  const parsed = schema.safeParse(o.result)
  if (parsed.success) return { value: parsed.data }
  return { error: `the server answered with a result Berth does not understand: ${JSON.stringify(o.result).slice(0, 200)}` }
}

/** A pause's outcome as the server reported it, once the job ended; null while it has not. */
export function pauseJobResult(o: JobOutcome): { value: PauseJobResult } | { error: string } | undefined {
  const r = jobResult(PauseJobResult, o)
  if (r && 'value' in r) {
    const v = r.value
    // empty strings are the script's "none"
    return { value: { ...v, fallback: v.fallback || undefined, image: v.image || undefined, checkpoint: v.checkpoint || undefined } }
  }
  return r
}
