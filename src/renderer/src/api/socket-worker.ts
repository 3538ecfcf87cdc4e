// The WebSocket to the door, held in a worker. Chromium hands a page's WebSocket its data through
// a 64 KiB pipe that only the page's main thread drains: with the main thread busy parsing and
// drawing a terminal flood, the socket ran at half the rate a worker reaches (bench/ui). The
// worker drains it at once and asks the door for stream output as binary frames, whose bytes it
// hands over without a copy; every other frame is relayed as the text it came as.
import { BINARY_STREAMS_QUERY, readBinaryStreamFrame } from '../../../shared/stream-frames'
import type { WorkerCommand, WorkerNotice } from './worker-socket'

interface Scope {
  postMessage(m: WorkerNotice, transfer?: Transferable[]): void
  onmessage: ((e: MessageEvent<WorkerCommand>) => void) | null
}
const scope = self as unknown as Scope
let ws: WebSocket | undefined

function relay(data: string | ArrayBuffer): void {
  // text (a 1,000-session list) is parsed once, by the bridge
  if (typeof data === 'string') return scope.postMessage(data)
  const stream = readBinaryStreamFrame(new Uint8Array(data))
  if (stream) scope.postMessage({ t: 'bytes', data: stream }, [data])
}

scope.onmessage = (e) => {
  const c = e.data
  if (typeof c === 'string') return ws?.send(c)
  if (c.t === 'close') return ws?.close()
  ws = new WebSocket(`${c.url}${c.url.includes('?') ? '&' : '?'}${BINARY_STREAMS_QUERY}`)
  ws.binaryType = 'arraybuffer'
  ws.onopen = () => scope.postMessage({ t: 'open' })
  ws.onmessage = (m: MessageEvent<string | ArrayBuffer>) => relay(m.data)
  ws.onclose = () => scope.postMessage({ t: 'close' })
}
