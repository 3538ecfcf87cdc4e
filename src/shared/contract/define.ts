import { z } from 'zod'

/** One call of the contract: what it takes and what it gives back, both validated at the door. */
export interface CallSpec<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  args: A
  result: R
  /** A short sentence for docs and usage errors. */
  summary: string
}

export const call = <A extends z.ZodType, R extends z.ZodType>(args: A, result: R, summary: string): CallSpec<A, R> => ({
  args,
  result,
  summary,
})

/** An optional client-chosen id that progress events of this call will carry. */
export const OpId = z.string().min(1).max(64).regex(/^[A-Za-z0-9._-]+$/).optional()

/** A session is named by its id, its name or its route id. */
export const SessionRef = z.string().min(1).max(128)

/** A snapshot's own name (its id adds the version: NAME:vN). */
export const SnapshotName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a snapshot name is letters, digits, dot, dash and underscore')

/** A snapshot is named by its tag-qualified id (NAME:vN), or by NAME alone for its newest version. */
export const SnapshotRef = z
  .string()
  .min(1)
  .max(80)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*(:v\d{1,9})?$/, 'a snapshot is NAME or NAME:vN')

export const SecretName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'a secret name is letters, digits, dot, dash and underscore, starting with a letter or _')
