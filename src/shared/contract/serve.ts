import { z } from 'zod'
import { call } from './define'
import { StreamId } from './streams'

export const ServePort = z.number().int().min(0).max(65535)

export const ServeOpened = z.object({
  /** http://127.0.0.1:PORT/TOKEN/ : the only address that opens the UI */
  url: z.string(),
  port: z.number().int(),
  /** the door lives as long as this stream: closing it (or the connection) stops serving */
  streamId: StreamId,
})

export const serveCalls = {
  'serve.open': call(
    z.object({ port: ServePort.optional() }),
    ServeOpened,
    'serve the UI to a browser on 127.0.0.1 behind a random token, while this connection lasts',
  ),
} as const
