// The sandboxed preload: exposes `window.berth` (typed from the contract) and nothing else. It
// checks nothing itself: the main process validates every call and checks who sent it.
import { contextBridge, ipcRenderer } from 'electron'
import type { BerthBridge } from '../shared/bridge'

// Kept in step with src/main/doors/electron-ipc.ts (a sandboxed preload cannot import main code).
const CALL_PREFIX = 'berth:call:'
const EVENT_CHANNEL = 'berth:event'

const listeners = new Map<string, Set<(payload: unknown) => void>>()

ipcRenderer.on(EVENT_CHANNEL, (_event, name: string, payload: unknown) => {
  const set = listeners.get(name)
  if (set) for (const fn of [...set]) fn(payload)
})

const berth: BerthBridge = {
  host: 'electron',
  core: {
    call: (name, args) => ipcRenderer.invoke(CALL_PREFIX + name, args),
    on: (name, listener) => {
      const fn = listener as (payload: unknown) => void
      let set = listeners.get(name)
      if (!set) listeners.set(name, (set = new Set()))
      set.add(fn)
      return () => {
        set.delete(fn)
      }
    },
  },
  app: {
    openExternal: (url) => ipcRenderer.invoke('berth:open-external', url),
    readClipboard: () => ipcRenderer.invoke('berth:clipboard-read'),
    writeClipboard: (text) => ipcRenderer.invoke('berth:clipboard-write', text),
  },
}

contextBridge.exposeInMainWorld('berth', berth)
