// The sandboxed preload: exposes `window.berth` (typed from the contract) and nothing else. It
// checks nothing itself: the main process validates every call and checks who sent it.
import { contextBridge, ipcRenderer } from 'electron'
import type { BerthBridge } from '../shared/bridge'
import { EventListeners } from '../shared/event-listeners'

// Kept in step with src/main/doors/electron-ipc.ts (a sandboxed preload cannot import main code).
const CALL_PREFIX = 'berth:call:'
const EVENT_CHANNEL = 'berth:event'

const listeners = new EventListeners()

ipcRenderer.on(EVENT_CHANNEL, (_event, name: string, payload: unknown) => listeners.emit(name, payload))

const berth: BerthBridge = {
  host: 'electron',
  core: {
    call: (name, args) => ipcRenderer.invoke(CALL_PREFIX + name, args),
    on: (name, listener) => listeners.add(name, listener as (payload: unknown) => void),
  },
  app: {
    openExternal: (url) => ipcRenderer.invoke('berth:open-external', url),
    readClipboard: () => ipcRenderer.invoke('berth:clipboard-read'),
    writeClipboard: (text) => ipcRenderer.invoke('berth:clipboard-write', text),
  },
}

contextBridge.exposeInMainWorld('berth', berth)
