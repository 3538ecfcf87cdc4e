// The frames the control socket and the WebSocket door exchange (Electron IPC carries the same
// envelope through ipcRenderer.invoke).
import { z } from 'zod'
import { ErrorBody } from './errors'

export const CallFrame = z.object({ t: z.literal('call'), id: z.number().int(), name: z.string(), args: z.unknown() })
export const ResultFrame = z.object({ t: z.literal('result'), id: z.number().int(), result: z.unknown() })
export const ErrorFrame = z.object({ t: z.literal('error'), id: z.number().int(), error: ErrorBody })
export const EventFrame = z.object({ t: z.literal('event'), name: z.string(), payload: z.unknown() })
export const ClientFrame = CallFrame
export const ServerFrame = z.discriminatedUnion('t', [ResultFrame, ErrorFrame, EventFrame])
export type CallFrame = z.infer<typeof CallFrame>
export type ServerFrame = z.infer<typeof ServerFrame>

export const eventFrame = (name: string, payload: unknown): ServerFrame => ({ t: 'event', name, payload })

/** The result envelope (Podman Desktop's shape), used where a thrown error would lose its code. */
export type Envelope<R> = { result: R } | { error: ErrorBody }
