import { z } from 'zod'
import { ErrorCode } from '../errors'
import { call, SessionRef } from './define'
import { EnvName } from './sessions'

// Streams are id-keyed: open returns an id; data, resize and close carry it. Data is base64.
export const StreamId = z.string().min(1).max(64)

export const streamCalls = {
  'exec.open': call(
    z.object({
      id: SessionRef,
      cmd: z.array(z.string()).min(1),
      tty: z.boolean().optional(),
      stdin: z.boolean().optional(),
      env: z.record(EnvName, z.string()).optional(),
      cols: z.number().int().positive().max(1000).optional(),
      rows: z.number().int().positive().max(1000).optional(),
    }),
    z.object({ streamId: StreamId }),
    'run a command in a session; output arrives as stream.data events, the exit code as stream.exit',
  ),
  'stream.write': call(
    z.object({ streamId: StreamId, data: z.string().max(1_500_000).optional(), eof: z.boolean().optional() }),
    z.object({ ok: z.boolean() }),
    'send input to a stream',
  ),
  'stream.resize': call(
    z.object({ streamId: StreamId, cols: z.number().int().positive().max(1000), rows: z.number().int().positive().max(1000) }),
    z.object({ ok: z.boolean() }),
    'resize a terminal stream',
  ),
  'stream.ack': call(
    z.object({ streamId: StreamId, bytes: z.number().int().nonnegative() }),
    z.object({ ok: z.boolean() }),
    'tell the core how many bytes of output the client has consumed (flow control)',
  ),
  'stream.close': call(z.object({ streamId: StreamId }), z.object({ ok: z.boolean() }), 'close a stream'),
} as const

export const StreamData = z.object({ streamId: StreamId, fd: z.union([z.literal(1), z.literal(2)]), data: z.string() })
export const StreamExit = z.object({
  streamId: StreamId,
  exitCode: z.number().int().nullable(),
  /** why the stream ended without an exit status */
  error: z.string().optional(),
  errorCode: ErrorCode.optional(),
})
