// Stream output as bytes, for the doors that can carry them: a WebSocket client that asks for
// binary frames (the UI's socket worker) and the Electron window. No zod here: the sandboxed
// preload bundles this file.
import type { EventPayload } from './contract'

/** A stream.data event with its bytes, not their base64. */
export type StreamBytes = Omit<EventPayload<'stream.data'>, 'data'> & { bytes: Uint8Array }

/**
 * A WebSocket client that asks for it (this query on the door's /ws address) gets stream output as
 * binary frames: a terminal flood is then neither base64'd by the core nor parsed as JSON and
 * decoded by the browser, a third fewer bytes cross the socket, and the page's share of a busy
 * machine goes to drawing. Every other frame stays JSON text.
 */
export const BINARY_STREAMS_QUERY = 'streams=binary'

/** A binary stream.data frame: the fd (1 byte), the stream id's length (1 byte), the id (ASCII), the bytes. */
export function binaryStreamFrame(streamId: string, fd: 1 | 2, bytes: Uint8Array): Uint8Array {
  const frame = new Uint8Array(2 + streamId.length + bytes.length)
  frame[0] = fd
  frame[1] = streamId.length
  for (let i = 0; i < streamId.length; i++) frame[2 + i] = streamId.charCodeAt(i) & 0x7f
  frame.set(bytes, 2 + streamId.length)
  return frame
}

/** Reads a binary stream.data frame; the bytes are a view into it, not a copy. Undefined if malformed. */
export function readBinaryStreamFrame(frame: Uint8Array): StreamBytes | undefined {
  const fd = frame[0]
  const idLength = frame[1]
  if ((fd !== 1 && fd !== 2) || idLength === undefined || idLength === 0 || frame.length < 2 + idLength) return undefined
  const streamId = String.fromCharCode(...frame.subarray(2, 2 + idLength))
  return { streamId, fd, bytes: frame.subarray(2 + idLength) }
}
