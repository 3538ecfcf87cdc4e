import { z } from 'zod'
import { call, SessionRef } from './define'
import { EnvName } from './sessions'

/** A job's id inside its session, as Berth makes them. */
export const JobId = z.string().regex(/^j[a-z0-9]{1,15}$/, 'a job id is j and lowercase letters and digits')

export const JobState = z.enum(['running', 'exited', 'lost'])

/**
 * A detached job: a command under a small supervisor inside the session's own process tree, so it
 * survives memory pauses, resumes, moves and forks. `lost`: its processes are gone without an exit
 * code (the session came back from its disk, without its memory).
 */
export const Job = z.object({
  id: JobId,
  command: z.string(),
  state: JobState,
  exitCode: z.number().int().nullable(),
  startedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
})
export type Job = z.infer<typeof Job>

export const JobSignal = z.enum(['TERM', 'INT', 'HUP', 'KILL', 'QUIT', 'USR1', 'USR2', 'STOP', 'CONT'])

/** Where a reader of a job's log is: the log's rotation and the byte in it (opaque to clients). */
export const LogCursor = z.object({ gen: z.number().int().min(0), offset: z.number().int().min(0) })

export const LogLine = z.object({ at: z.string().nullable(), text: z.string() })

export const JobLogs = z.object({
  job: Job,
  lines: z.array(LogLine),
  /** pass it back to read on from here */
  cursor: LogCursor,
  /** more is already written: read again at once */
  more: z.boolean(),
  /** lines rotated out of the bounded log before they were read */
  skipped: z.boolean(),
})

export const jobCalls = {
  'job.start': call(
    z.object({ id: SessionRef, cmd: z.array(z.string().max(100_000)).min(1).max(1000), env: z.record(EnvName, z.string()).optional() }),
    Job,
    'start a detached job in a running session: it runs on through pauses, resumes, moves and forks, its output in a bounded log',
  ),
  'job.list': call(z.object({ id: SessionRef }), z.array(Job), "a running session's detached jobs, oldest first"),
  'job.logs': call(
    z.object({
      id: SessionRef,
      job: JobId,
      cursor: LogCursor.optional(),
      /** only lines written at or after this time (ISO) */
      since: z.string().datetime().optional(),
    }),
    JobLogs,
    "a job's output from a cursor (from its start without one), a bounded piece at a time",
  ),
  'job.kill': call(
    z.object({ id: SessionRef, job: JobId, signal: JobSignal.optional() }),
    z.object({ job: Job, signalled: z.boolean() }),
    "signal a job's processes (TERM unless told); a job that already ended is left as it is",
  ),
} as const
