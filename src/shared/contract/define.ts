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
