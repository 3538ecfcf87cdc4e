// The window's door: one ipcMain.handle per contract call. Every call is checked twice before it
// reaches the core: the sender must be the main frame of one of our windows showing our own page
// (berth://app), and the core's dispatch validates the arguments and the result with zod.
// Events and stream output go back with webContents.send, only to the window that asked for them;
// stream output as bytes (IPC carries them as they are), never as base64.
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron'
import { calls } from '../../shared/contract'
import type { Envelope } from '../../shared/wire'
import type { Core } from '../core/core'
import { DoorConnection } from './door-connection'

export const IPC_CALL_PREFIX = 'berth:call:'
export const IPC_EVENT_CHANNEL = 'berth:event'
/** stream output: one binary stream frame (stream-frames.ts) per message */
export const IPC_STREAM_CHANNEL = 'berth:stream'

export interface IpcDoorOptions {
  /** true when a frame URL is our own page (the app protocol's origin) */
  isOwnPage(url: string): boolean
}

const refused = (message: string): Envelope<never> => ({ error: { code: 'refused', message } })

export class ElectronIpcDoor {
  private readonly connections = new Map<number, DoorConnection>()
  private readonly channels: string[] = []

  constructor(
    private readonly core: Core,
    private readonly ipcMain: IpcMain,
    private readonly options: IpcDoorOptions,
  ) {
    for (const name of Object.keys(calls)) {
      const channel = IPC_CALL_PREFIX + name
      this.channels.push(channel)
      ipcMain.handle(channel, (event, args: unknown) => this.handle(event, name, args))
    }
  }

  private handle(event: IpcMainInvokeEvent, name: string, args: unknown): Promise<Envelope<unknown>> | Envelope<unknown> {
    const frame = event.senderFrame
    // Only our page in a window's main frame may call: never a subframe, never another origin.
    if (!frame || frame.parent !== null || !this.options.isOwnPage(frame.url)) {
      return refused('this page is not allowed to call Berth')
    }
    return this.connectionFor(event.sender).call(name, args)
  }

  /** One door connection per window; a reload or a closed window drops it with its streams. */
  private connectionFor(contents: WebContents): DoorConnection {
    const existing = this.connections.get(contents.id)
    if (existing && !existing.isClosed) return existing
    const conn = new DoorConnection(
      this.core,
      'ipc',
      (frame) => {
        if (frame.t !== 'event' || contents.isDestroyed()) return
        contents.send(IPC_EVENT_CHANNEL, frame.name, frame.payload)
      },
      (frame) => {
        if (!contents.isDestroyed()) contents.send(IPC_STREAM_CHANNEL, frame)
      },
    )
    this.connections.set(contents.id, conn)
    const drop = () => {
      conn.close()
      if (this.connections.get(contents.id) === conn) this.connections.delete(contents.id)
      contents.off('did-start-navigation', onNavigate)
    }
    const onNavigate = (details: { isMainFrame: boolean; isSameDocument: boolean }) => {
      if (details.isMainFrame && !details.isSameDocument) drop()
    }
    contents.once('destroyed', drop)
    contents.once('render-process-gone', drop)
    contents.on('did-start-navigation', onNavigate)
    return conn
  }

  close(): void {
    for (const channel of this.channels) this.ipcMain.removeHandler(channel)
    for (const conn of this.connections.values()) conn.close()
    this.connections.clear()
  }
}
