import { z } from 'zod'
import { ErrorBody } from '../errors'
import { Session, Snapshot } from '../models'
import { call, OpId, SessionRef, SnapshotName, SnapshotRef } from './define'
import { EnvName, SessionName } from './sessions'
import { ServerName } from './servers'

/** Pagination token: opaque to clients, handed back as `next`. */
export const PageToken = z.string().min(1).max(200).regex(/^[A-Za-z0-9_-]+$/, 'not a page token')

export const SnapshotPage = z.object({ items: z.array(Snapshot), next: z.string().nullable() })

/** Whether a restore brought the processes back (memory) or booted from disk, and why not. */
export const RestoreOutcome = z.object({ memory: z.boolean(), note: z.string().nullable() })

export const ForkOutcome = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), index: z.number().int(), session: Session, memory: z.boolean(), note: z.string().nullable() }),
  z.object({ ok: z.literal(false), index: z.number().int(), name: z.string().nullable(), error: ErrorBody }),
])

export const ForkResult = z.object({
  /** the one capture every fork was made from */
  capture: Snapshot,
  forks: z.array(ForkOutcome),
  succeeded: z.number().int(),
  failed: z.number().int(),
})

export const MoveResult = z.object({
  session: Session,
  from: z.string(),
  to: z.string(),
  /** true when the memory checkpoint travelled and the processes continued on the target */
  memory: z.boolean(),
  note: z.string().nullable(),
  bytes: z.number(),
  seconds: z.number(),
  layersSent: z.number().int(),
  layersSkipped: z.number().int(),
  resumed: z.boolean(),
})

export const RewindResult = z.object({
  session: Session,
  /** the state the session had before the rewind, kept as a snapshot */
  kept: Snapshot,
  to: Snapshot,
  memory: z.boolean(),
  note: z.string().nullable(),
})

export const snapshotCalls = {
  'snapshot.create': call(
    z.object({ id: SessionRef, name: SnapshotName.optional(), op: OpId }),
    Snapshot,
    'snapshot a running or paused session (NAME:vN; the version grows with each snapshot of that name)',
  ),
  'snapshot.list': call(
    z.object({
      session: SessionRef.optional(),
      server: ServerName.optional(),
      name: SnapshotName.optional(),
      auto: z.boolean().optional(),
      limit: z.number().int().min(1).max(500).optional(),
      next: PageToken.optional(),
    }),
    SnapshotPage,
    'list snapshots, newest first, a page at a time',
  ),
  'snapshot.show': call(z.object({ id: SnapshotRef }), Snapshot, 'show one snapshot'),
  'snapshot.remove': call(
    z.object({ id: SnapshotRef }),
    z.object({ deleted: z.boolean(), id: z.string().optional() }),
    'delete a snapshot and what it holds on its server',
  ),
  'snapshot.test': call(
    z.object({ id: SnapshotRef, op: OpId }),
    z.object({ snapshot: Snapshot, memory: z.boolean(), note: z.string().nullable(), ms: z.number() }),
    'restore a snapshot into a throwaway container to prove it restores; records the result',
  ),
  'session.fork': call(
    z.object({ id: SessionRef, name: SessionName.optional(), count: z.number().int().min(1).max(16).optional(), op: OpId }),
    ForkResult,
    'K independent sessions from one capture of a session; each succeeds or fails on its own',
  ),
  'session.rewind': call(
    z.object({ id: SessionRef, to: SnapshotRef, op: OpId }),
    RewindResult,
    'bring a session back to an earlier snapshot of its own (its current state is kept as a snapshot first)',
  ),
  'session.restart': call(
    z.object({ id: SessionRef, env: z.record(EnvName, z.string()).optional(), op: OpId }),
    Session,
    'recreate the container with the session env; the id, files, views and route stay; processes stop',
  ),
  'session.move': call(
    z.object({ id: SessionRef, to: ServerName, resume: z.boolean().optional(), op: OpId }),
    MoveResult,
    'move a paused session to another server (memory, disk, workspace), optionally resuming it there',
  ),
  'session.stale': call(
    z.object({}),
    z.object({ days: z.number(), sessions: z.array(Session) }),
    'paused sessions older than the staleAfterDays setting, listed for clean-up (never deleted silently)',
  ),
} as const
