// Errors cross every door as {error:{code,message}} (Electron drops the details of thrown errors).
import { z } from 'zod'

export const ERROR_CODES = [
  'usage', // bad flags or arguments
  'not_found', // unknown session, server or snapshot
  'unreachable', // a server cannot be reached or refused us
  'host_key_mismatch', // a server presented a different key than the one we trusted
  'host_key_unconfirmed', // first contact: the fingerprint must be confirmed
  'conflict', // the session is in a state that does not allow the verb, or someone else moved it
  'refused', // the verb is not allowed (a finished session, unsaved work, a denied origin)
  'busy', // the daemon or a resource is held by another process
  'engine', // a Docker engine could not do what was asked (start, commit, create a container)
  'checkpoint', // a memory checkpoint could not be written or restored
  'transfer', // carrying images or a session's parts between servers failed
  'git', // git could not do its part of a workspace save or clone
  'timeout', // something Berth waits on did not answer within its deadline
  'unavailable', // something Berth needs is not there (the UI build, overlay2, the server script, the daemon)
  'damaged', // a file or archive is not what it should be (the secrets file or key, an image archive)
  'internal', // a failure Berth did not expect: a bug to report
] as const
export const ErrorCode = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof ErrorCode>

export const ErrorBody = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
})
export type ErrorBody = z.infer<typeof ErrorBody>

export class BerthError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'BerthError'
  }

  toBody(): ErrorBody {
    return this.details ? { code: this.code, message: this.message, details: this.details } : { code: this.code, message: this.message }
  }
}

/** The CLI's exit codes, from the foundation issue: 2 usage, 3 not found, 4 unreachable or refused by a server, 1 for every other failure. */
export function exitCodeFor(code: ErrorCode): number {
  switch (code) {
    case 'usage':
      return 2
    case 'not_found':
      return 3
    case 'unreachable':
    case 'host_key_mismatch':
    case 'host_key_unconfirmed':
      return 4
    case 'conflict':
    case 'refused':
    case 'busy':
    case 'engine':
    case 'checkpoint':
    case 'transfer':
    case 'git':
    case 'timeout':
    case 'unavailable':
    case 'damaged':
    case 'internal':
      return 1
  }
}

export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof BerthError) return err.toBody()
  const parsed = ErrorBody.safeParse((err as { body?: unknown })?.body)
  if (parsed.success) return parsed.data
  const message = err instanceof Error ? err.message : String(err)
  return { code: 'internal', message: oneSentence(message) }
}

/** Error messages are one clear sentence: trim engine noise to its first line. */
export function oneSentence(message: string): string {
  const first = message.split('\n').find((l) => l.trim().length > 0) ?? message
  return first.trim().replace(/\s+/g, ' ').slice(0, 400)
}

/** What went wrong, as one sentence: a BerthError says it already; anything else is trimmed to its first line. */
export function reasonOf(e: unknown): string {
  return e instanceof BerthError ? e.message : oneSentence((e as Error | undefined)?.message ?? String(e))
}
