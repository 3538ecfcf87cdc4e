// The sandboxed preload: exposes `window.berth` (typed from the contract) and nothing else. It
// checks nothing itself: the main process validates every call and checks who sent it.
import { contextBridge, ipcRenderer } from 'electron'
import type { BerthBridge, StreamBytes } from '../shared/bridge'
import { EventListeners } from '../shared/event-listeners'
import { readBinaryStreamFrame } from '../shared/stream-frames'

// Kept in step with src/main/doors/electron-ipc.ts (a sandboxed preload cannot import main code).
const CALL_PREFIX = 'berth:call:'
const EVENT_CHANNEL = 'berth:event'
const STREAM_CHANNEL = 'berth:stream'

const listeners = new EventListeners()
const streamListeners = new Set<(data: StreamBytes) => void>()

ipcRenderer.on(EVENT_CHANNEL, (_event, name: string, payload: unknown) => listeners.emit(name, payload))
ipcRenderer.on(STREAM_CHANNEL, (_event, frame: Uint8Array) => {
  const data = readBinaryStreamFrame(frame)
  if (data) for (const l of streamListeners) l(data)
})

const berth: BerthBridge = {
  host: 'electron',
  core: {
    call: (name, args) => ipcRenderer.invoke(CALL_PREFIX + name, args),
    on: (name, listener) => listeners.add(name, listener as (payload: unknown) => void),
    onStreamBytes: (listener) => {
      streamListeners.add(listener)
      return () => void streamListeners.delete(listener)
    },
  },
  app: {
    openExternal: (url) => ipcRenderer.invoke('berth:open-external', url),
    readClipboard: () => ipcRenderer.invoke('berth:clipboard-read'),
    writeClipboard: (text) => ipcRenderer.invoke('berth:clipboard-write', text),
    openLogs: () => ipcRenderer.invoke('berth:open-logs'),
    installCommandLine: () => ipcRenderer.invoke('berth:install-command-line'),
  },
}

contextBridge.exposeInMainWorld('berth', berth)
