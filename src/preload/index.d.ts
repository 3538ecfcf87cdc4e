// What the preload adds to the page: `window.berth` (absent in a plain browser tab, where the
// renderer builds the same object over the WebSocket door).
import type { BerthBridge } from '../shared/bridge'

declare global {
  interface Window {
    berth?: BerthBridge
  }
}

export {}
