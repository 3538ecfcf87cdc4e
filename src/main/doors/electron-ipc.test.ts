import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventEmitter } from 'node:events'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { IpcMain, WebContents } from 'electron'
import { calls } from '../../shared/contract'
import { Core } from '../core/core'
import { installModules } from '../core/modules'
import { readBinaryStreamFrame } from '../../shared/stream-frames'
import { COALESCE_MS } from '../core/streams/stream-hub'
import { ElectronIpcDoor, IPC_CALL_PREFIX, IPC_EVENT_CHANNEL, IPC_STREAM_CHANNEL } from './electron-ipc'

/** ipcMain and a window's webContents, as far as the door uses them. */
class FakeIpcMain {
  handlers = new Map<string, (event: unknown, args: unknown) => unknown>()
  handle(channel: string, fn: (event: unknown, args: unknown) => unknown) {
    this.handlers.set(channel, fn)
  }
  removeHandler(channel: string) {
    this.handlers.delete(channel)
  }
}
class FakeContents extends EventEmitter {
  sent: Array<[string, ...unknown[]]> = []
  constructor(readonly id: number) {
    super()
  }
  isDestroyed() {
    return false
  }
  send(channel: string, ...args: unknown[]) {
    this.sent.push([channel, ...args])
  }
}

const ownPage = 'berth://app/index.html'
const frame = (url: string, parent: unknown = null) => ({ url, parent })

describe('the window door (Electron IPC)', () => {
  let home: string
  let core: Core
  let ipc: FakeIpcMain
  let door: ElectronIpcDoor

  beforeEach(async () => {
    home = mkdtempSync(join(tmpdir(), 'berth-ipc-'))
    core = await Core.open({ home, host: 'electron', localSocket: '/nonexistent.sock' })
    installModules(core)
    ipc = new FakeIpcMain()
    door = new ElectronIpcDoor(core, ipc as unknown as IpcMain, { isOwnPage: (u) => u.startsWith('berth://app/') })
  })
  afterEach(async () => {
    door.close()
    await core.close()
    rmSync(home, { recursive: true, force: true })
  })

  const invoke = (name: string, args: unknown, sender: FakeContents, senderFrame: unknown) => ipc.handlers.get(IPC_CALL_PREFIX + name)!({ sender, senderFrame }, args)

  it('has one handler per contract call, and answers our own page through the core', async () => {
    expect([...ipc.handlers.keys()].sort()).toEqual(Object.keys(calls).map((n) => IPC_CALL_PREFIX + n).sort())
    const win = new FakeContents(1)
    expect(await invoke('daemon.info', {}, win, frame(ownPage))).toMatchObject({ result: { host: 'electron', home } })
    // validated by the core's zod schemas like every door
    expect(await invoke('session.create', { image: 42 }, win, frame(ownPage))).toMatchObject({ error: { code: 'usage' } })
  })

  it('refuses subframes, other pages and vanished frames', async () => {
    const win = new FakeContents(1)
    expect(await invoke('daemon.info', {}, win, frame('https://evil.example/'))).toEqual({ error: { code: 'refused', message: 'this page is not allowed to call Berth' } })
    expect(await invoke('daemon.info', {}, win, frame(ownPage, frame(ownPage)))).toMatchObject({ error: { code: 'refused' } })
    expect(await invoke('daemon.info', {}, win, null)).toMatchObject({ error: { code: 'refused' } })
    expect(await invoke('daemon.info', {}, win, frame('file:///etc/passwd'))).toMatchObject({ error: { code: 'refused' } })
  })

  it('sends the events a window subscribed to, to that window only, and forgets it when it reloads', async () => {
    const a = new FakeContents(1)
    const b = new FakeContents(2)
    await invoke('events.subscribe', { names: ['settings.changed'] }, a, frame(ownPage))
    await invoke('settings.set', { patch: { idleAfterSeconds: 60 } }, b, frame(ownPage))
    expect(a.sent.map(([ch, name]) => [ch, name])).toEqual([[IPC_EVENT_CHANNEL, 'settings.changed']])
    expect(b.sent).toEqual([])
    a.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false })
    await invoke('settings.set', { patch: { idleAfterSeconds: 90 } }, b, frame(ownPage))
    expect(a.sent).toHaveLength(1)
  })

  it("sends a stream's output to the window that opened it, as bytes", async () => {
    const win = new FakeContents(1)
    await invoke('daemon.info', {}, win, frame(ownPage))
    // the window's connection, as a terminal the window opened would own it
    const conn = door['connectionFor'](win as unknown as WebContents)
    const streamId = core.hub.create(conn)
    core.hub.data(streamId, 1, Buffer.from([0x1b, 0x5b, 0x31, 0x6d, 0xff]))
    await new Promise((r) => setTimeout(r, COALESCE_MS * 3))
    expect(win.sent).toHaveLength(1)
    const [channel, sent] = win.sent[0]!
    expect(channel).toBe(IPC_STREAM_CHANNEL)
    const data = readBinaryStreamFrame(sent as Uint8Array)!
    expect({ streamId: data.streamId, fd: data.fd, bytes: [...data.bytes] }).toEqual({ streamId, fd: 1, bytes: [0x1b, 0x5b, 0x31, 0x6d, 0xff] })
  })
})
