import { z } from 'zod'
import { ErrorBody } from '../errors'
import { EventRecord, PauseMode, Server, Session } from '../models'
import { call, OpId, SessionRef } from './define'
import { ServerName } from './servers'

/**
 * What a pause did. `mode` says what was kept: memory (a CRIU checkpoint: processes continue),
 * frozen (cgroup freezer + a committed disk snapshot; the memory stays on that server only), or
 * disk (the committed filesystem; resume cold-boots). `fallback` says why a lesser mode was used.
 * Pausing a paused session answers {paused:false}.
 */
export const PauseResult = z.union([
  z.object({
    paused: z.literal(true),
    mode: PauseMode,
    durable: z.boolean(),
    snapshot: z.string(),
    ms: z.number(),
    fallback: z.string().optional(),
    /** when the session was frozen with its files durable (the first stage of every pause) */
    frozenMs: z.number().optional(),
    /** a frozen session whose memory checkpoint is still to be written: it did not fit the deadline */
    pending: z.literal('memory').optional(),
  }),
  z.object({ paused: z.literal(false) }),
])
export type PauseResult = z.infer<typeof PauseResult>

/** How long a pause may take: past it, `--wait` answers with each session's honest state. */
export const DeadlineSeconds = z.number().min(1).max(3600)

/** Each session of a pause --all succeeds or fails on its own. */
export const PauseAllResult = z.object({
  results: z.array(
    z.object({ id: z.string(), name: z.string(), server: z.string(), result: PauseResult.optional(), error: ErrorBody.optional() }),
  ),
  ms: z.number(),
  /** the deadline the pauses had */
  deadlineMs: z.number(),
  /** when every paused session was frozen with its files durable; null if one never was */
  frozenMs: z.number().nullable(),
  /** when every pause was durable; null if one was not by the answer */
  durableMs: z.number().nullable(),
})
export type PauseAllResult = z.infer<typeof PauseAllResult>

/**
 * How a session came back: memory (restored from its checkpoint: processes continued), frozen
 * (thawed), disk (cold boot from its files). `fallback` says why memory did not come back; `note`
 * what else the resume had to do (a container the engine lost, made again from the kept disk).
 */
export const ResumeResult = z.union([
  z.object({
    resumed: z.literal(true),
    mode: PauseMode,
    ms: z.number(),
    fallback: z.string().optional(),
    note: z.string().optional(),
    /** restored with lazy pages: the session runs, its memory still arriving ("memory-back" in its events once all is in) */
    lazy: z.boolean().optional(),
  }),
  z.object({ resumed: z.literal(false) }),
])
export type ResumeResult = z.infer<typeof ResumeResult>

export const pauseCalls = {
  'session.pause': call(
    z.object({
      id: SessionRef,
      /** return only once the pause is durable (fsync'd on the server, committed in the store) */
      wait: z.boolean().optional(),
      /** false: a disk-only pause (commit; resume cold-boots) */
      memory: z.boolean().optional(),
      /** the pause is over by then (default: the pauseDeadlineSeconds setting, else 120 s): memory if it fits, else disk at once */
      deadlineSeconds: DeadlineSeconds.optional(),
      op: OpId,
    }),
    PauseResult,
    'pause a session, keeping its memory when the server can checkpoint it',
  ),
  'session.pauseAll': call(
    z.object({
      wait: z.boolean().optional(),
      memory: z.boolean().optional(),
      /** default: the pauseDeadlineSeconds setting, else the OS's sleep window */
      deadlineSeconds: DeadlineSeconds.optional(),
      op: OpId,
    }),
    PauseAllResult,
    'pause every running session on every server',
  ),
  'session.resume': call(z.object({ id: SessionRef, op: OpId }), ResumeResult, 'resume a paused session on its server'),
  'session.configure': call(
    z.object({
      id: SessionRef,
      /** seconds without activity before the session pauses itself; 0 turns it off; null: the global setting */
      idleAfterSeconds: z.number().int().min(0).max(7 * 24 * 3600).nullable().optional(),
      /** whether idle auto-pause and the "marked" sleep policy apply to this session */
      autoPause: z.boolean().optional(),
    }),
    Session,
    "change a session's idle time and auto-pause mark",
  ),
  'server.setCheckpoint': call(
    z.object({ name: ServerName, checkpoint: z.enum(['auto', 'fast', 'docker', 'off']) }),
    Server,
    'choose how a server checkpoints memory: the best way found (auto), a given one, or not at all (pauses freeze instead)',
  ),
  'session.events': call(
    z.object({ id: SessionRef, limit: z.number().int().min(1).max(1000).optional() }),
    z.array(EventRecord),
    "a session's events log, oldest first",
  ),
} as const
