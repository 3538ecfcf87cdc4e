// The CLI's door: a unix socket in $BERTH_HOME (mode 0600, in a 0700 folder: only its owner can
// connect), carrying newline-delimited JSON frames.
import { chmodSync, rmSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import type { Core } from '../core/core'
import { DoorConnection } from './door-connection'

export const controlSocketPath = (home: string) => join(home, 'control.sock')

/** A line longer than this is not a call anyone sends: drop the connection rather than buffer it. */
const MAX_LINE = 8 * 1024 * 1024

export async function listenControlSocket(core: Core, home: string): Promise<net.Server> {
  const path = controlSocketPath(home)
  rmSync(path, { force: true })
  const server = net.createServer((socket) => {
    const conn = new DoorConnection(core, 'control', (frame) => {
      if (!socket.destroyed) socket.write(JSON.stringify(frame) + '\n')
    })
    let buf = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      buf += chunk
      if (buf.length > MAX_LINE) {
        socket.destroy()
        return
      }
      let nl: number
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl)
        buf = buf.slice(nl + 1)
        if (!line.trim()) continue
        let parsed: unknown
        try {
          parsed = JSON.parse(line)
        } catch {
          parsed = null
        }
        void conn.receive(parsed)
      }
    })
    socket.on('close', () => conn.close())
    socket.on('error', () => socket.destroy())
  })
  const oldMask = process.umask(0o177)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => resolve())
    })
  } finally {
    process.umask(oldMask)
  }
  chmodSync(path, 0o600)
  return server
}
