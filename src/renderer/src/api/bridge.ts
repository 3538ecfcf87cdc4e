// Which door this page talks through: the Electron preload's `window.berth`, or the WebSocket
// door when the page came from `berth serve`.
import type { BerthBridge } from '../../../shared/bridge'
import { WorkerSocket } from './worker-socket'
import { createWebSocketBridge, socketUrlFor } from './ws-bridge'

export function pageBridge(): BerthBridge {
  // the connection lives in a worker where the page can start one (see socket-worker.ts)
  return window.berth ?? createWebSocketBridge({ url: socketUrlFor(window.location), WebSocketImpl: typeof Worker === 'function' ? WorkerSocket : undefined })
}
