import { z } from 'zod'
import { Session } from '../models'
import { ReplicaTarget } from '../settings/replicas'
import { call, OpId, SessionRef } from './define'
import { MoveResult } from './snapshots'
import { ServerName } from './servers'

/** One copy of a session on another server: a current replica, one being brought up to date, or a stale copy left by a fail-over. */
export const ReplicaInfo = z.object({
  sessionId: z.string(),
  name: z.string(),
  server: z.string(),
  containerId: z.string().nullable(),
  kind: z.enum(['memory', 'disk']),
  /** the time of the state it holds (the pause or the seal it copied) */
  at: z.string(),
  status: z.enum(['current', 'syncing', 'stale']),
  /** the session's generation when this copy was made; a stale copy's is older than the session's */
  generation: z.number().int(),
  sessionGeneration: z.number().int(),
  /** the server it was copied from */
  source: z.string(),
  bytes: z.number(),
  syncedAt: z.string().nullable(),
  failure: z.string().nullable(),
  behindSeconds: z.number(),
})
export type ReplicaInfo = z.infer<typeof ReplicaInfo>

export const ResumeOnResult = MoveResult.extend({
  /** true when the source did not answer and the session came back from its replica */
  fromReplica: z.boolean(),
  /** what the replica did not have, in one sentence (null: nothing was lost) */
  lost: z.string().nullable(),
})

export const replicaCalls = {
  'replica.list': call(z.object({ session: SessionRef.optional() }), z.array(ReplicaInfo), "list sessions' replicas and the stale copies fail-overs left behind"),
  'replica.sync': call(
    z.object({ id: SessionRef, op: OpId }),
    ReplicaInfo,
    "bring a session's replica up to date now (its last pause or seal; only what the target lacks travels)",
  ),
  'replica.clean': call(
    z.object({ id: SessionRef.optional() }),
    z.object({ removed: z.array(ReplicaInfo), kept: z.array(z.object({ replica: ReplicaInfo, reason: z.string() })) }),
    'remove the stale copies fail-overs left on servers that answer again',
  ),
  'replica.target': call(
    z.object({ id: SessionRef, to: z.union([ReplicaTarget, z.literal('default')]) }),
    Session,
    'set where a session keeps its replica: none, local, a server, or default (the replicateTo setting)',
  ),
  'session.resumeOn': call(
    z.object({ id: SessionRef, to: ServerName, op: OpId }),
    ResumeOnResult,
    'resume a session on another server: moved from its server, or from its replica there when its server does not answer within 3 s',
  ),
} as const
