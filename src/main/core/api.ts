// Binds the contract's calls to the services: validate, call, return the envelope. Every door
// goes through dispatch(), so nothing reaches the core unchecked. Results are the core's own
// objects, typed by the contract at compile time; under test they are also checked at run time,
// strictly (nothing the contract lacks, nothing zod would strip), so what production sends
// unchecked is exactly what the tests proved. The check is off in production because it copies
// every result: for a listing of 1,000 sessions it was a third of the call.
import { isDeepStrictEqual } from 'node:util'
import type { z } from 'zod'
import { calls, isCallName, type CallName, type CallResult, type ParsedArgs } from '../../shared/contract'
import { BerthError, toErrorBody } from '../../shared/errors'
import type { Envelope } from '../../shared/wire'
import type { StreamOwner } from './streams/stream-hub'

export interface CallContext {
  /** the door connection the call came through (for streams and subscriptions) */
  owner: StreamOwner & { subscribe?(names: string[] | undefined): void }
  door: 'control' | 'ipc' | 'websocket'
}

export type Handler<N extends CallName> = (args: ParsedArgs<N>, ctx: CallContext) => Promise<CallResult<N>> | CallResult<N>
export type Handlers = { [N in CallName]: Handler<N> }

export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .slice(0, 3)
    .join('; ')
}

export async function dispatch(handlers: Handlers, name: string, rawArgs: unknown, ctx: CallContext): Promise<Envelope<unknown>> {
  try {
    if (!isCallName(name)) throw new BerthError('usage', `unknown call: ${name}`)
    const spec = calls[name]
    const parsed = spec.args.safeParse(rawArgs ?? {})
    if (!parsed.success) throw new BerthError('usage', `bad arguments for ${name}: ${formatIssues(parsed.error)}`)
    const handler = handlers[name] as Handler<CallName>
    const result = await handler(parsed.data as ParsedArgs<CallName>, ctx)
    if (CHECK_RESULTS) checkResult(name, spec.result, result)
    return { result }
  } catch (e) {
    return { error: toErrorBody(e) }
  }
}

/** On under test (vitest, or BERTH_CHECK_RESULTS=1 for a daemon run by hand). */
export const CHECK_RESULTS = process.env.BERTH_CHECK_RESULTS === '1' || !!process.env.VITEST

export function checkResult(name: string, schema: z.ZodType, result: unknown): void {
  const checked = schema.safeParse(result)
  if (!checked.success) throw new BerthError('internal', `the core answered ${name} with a malformed result: ${formatIssues(checked.error)}`)
  // JSON is what crosses a door: compare what zod kept with what would be sent
  const sent: unknown = result === undefined ? undefined : JSON.parse(JSON.stringify(result))
  const kept: unknown = checked.data === undefined ? undefined : JSON.parse(JSON.stringify(checked.data))
  if (!isDeepStrictEqual(sent, kept)) throw new BerthError('internal', `the core answered ${name} with fields the contract does not have: ${extraPath(sent, kept) ?? 'a changed value'}`)
}

/** The first path present in `a` but not in `b`. */
function extraPath(a: unknown, b: unknown, path: string[] = []): string | undefined {
  if (a && typeof a === 'object' && b && typeof b === 'object') {
    for (const k of Object.keys(a)) {
      if (!(k in b)) return [...path, k].join('.')
      const deeper = extraPath((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], [...path, k])
      if (deeper) return deeper
    }
  }
  return undefined
}
