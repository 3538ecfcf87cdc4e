// Binds the contract's calls to the services: validate, call, validate the result, return the
// envelope. Every door goes through dispatch(), so nothing reaches the core unchecked.
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
    const checked = spec.result.safeParse(result)
    if (!checked.success) throw new BerthError('internal', `the core answered ${name} with a malformed result: ${formatIssues(checked.error)}`)
    return { result: checked.data }
  } catch (e) {
    return { error: toErrorBody(e) }
  }
}
