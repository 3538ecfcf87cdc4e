// Which door this page talks through: the Electron preload's `window.berth`, or the WebSocket
// door when the page came from `berth serve`.
import type { BerthBridge } from '../../../shared/bridge'
import { createWebSocketBridge, socketUrlFor } from './ws-bridge'

export function pageBridge(): BerthBridge {
  return window.berth ?? createWebSocketBridge({ url: socketUrlFor(window.location) })
}
