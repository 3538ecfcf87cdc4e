// The WebSocket to the door, held in a worker. Chromium hands a page's WebSocket its data through
// a 64 KiB pipe that only the page's main thread drains: with the main thread busy parsing and
// drawing a terminal flood, the socket ran at half the rate a worker reaches (bench/ui). The
// worker drains it at once and relays every frame as it came, as a string.
import type { WorkerCommand, WorkerNotice } from './worker-socket'

const scope = self as unknown as { postMessage(m: WorkerNotice): void; onmessage: ((e: MessageEvent<WorkerCommand>) => void) | null }
let ws: WebSocket | undefined

scope.onmessage = (e) => {
  const c = e.data
  if (typeof c === 'string') return ws?.send(c)
  if (c.t === 'close') return ws?.close()
  ws = new WebSocket(c.url)
  ws.onopen = () => scope.postMessage({ t: 'open' })
  ws.onmessage = (m: MessageEvent) => scope.postMessage(String(m.data))
  ws.onclose = () => scope.postMessage({ t: 'close' })
}
