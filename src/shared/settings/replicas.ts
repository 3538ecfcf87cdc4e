import { z } from 'zod'

/** A replica target: none, `local` (the laptop's engine) or a connected server's name. */
export const ReplicaTarget = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z][a-z0-9-]*$/, 'a replica target is none, local or a server name')

// Replicas (issue 18 owns these keys).
export const replicaSettings = {
  /** where every session keeps a copy of its last durable state, unless the session says otherwise */
  replicateTo: ReplicaTarget.default('none'),
}
