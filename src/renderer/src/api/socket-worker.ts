// The WebSocket to the door, held in a worker. Chromium hands a page's WebSocket its data through
// a 64 KiB pipe that only the page's main thread drains: with the main thread busy parsing and
// drawing a terminal flood, the socket ran at half the rate a worker reaches (bench/ui). The
// worker drains it at once, decodes stream data (JSON and base64, the bulk of a flood) and hands
// the bytes over without a copy; every other frame is relayed as it came.
import type { EventPayload } from '../../../shared/contract'
import { STREAM_DATA_FRAME_START, type ServerFrame } from '../../../shared/wire'
import { fromBase64 } from '../terminal/codec'
import type { WorkerCommand, WorkerNotice } from './worker-socket'

interface Scope {
  postMessage(m: WorkerNotice, transfer?: Transferable[]): void
  onmessage: ((e: MessageEvent<WorkerCommand>) => void) | null
}
const scope = self as unknown as Scope
let ws: WebSocket | undefined

function relay(text: string): void {
  // only stream data is decoded here; the rest (a 1,000-session list) is parsed once, by the bridge
  if (text.startsWith(STREAM_DATA_FRAME_START)) {
    const frame = JSON.parse(text) as Extract<ServerFrame, { t: 'event' }>
    const { data, ...rest } = frame.payload as EventPayload<'stream.data'>
    const bytes = fromBase64(data)
    return scope.postMessage({ t: 'bytes', data: { ...rest, bytes } }, [bytes.buffer])
  }
  scope.postMessage(text)
}

scope.onmessage = (e) => {
  const c = e.data
  if (typeof c === 'string') return ws?.send(c)
  if (c.t === 'close') return ws?.close()
  ws = new WebSocket(c.url)
  ws.onopen = () => scope.postMessage({ t: 'open' })
  ws.onmessage = (m: MessageEvent) => relay(String(m.data))
  ws.onclose = () => scope.postMessage({ t: 'close' })
}
