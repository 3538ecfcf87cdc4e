// `serve.open` (`berth serve`): the browser tab's WebSocket door, opened on request. A door is the
// hosts' to install, so the daemon and the Electron shell plug this call in; the core never opens one.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { BerthError } from '../shared/errors'
import type { Core } from './core/core'
import { rendererDir } from './doors/static-files'
import { WebSocketDoor } from './doors/websocket'

/** The renderer build next to the running bundle (out/cli, out/main), else up the tree (tsx). */
export function findRendererDir(start = __dirname): string | undefined {
  const beside = rendererDir(start)
  if (existsSync(join(beside, 'index.html'))) return beside
  for (let dir = start; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidate = join(dir, 'out', 'renderer')
    if (existsSync(join(candidate, 'index.html'))) return candidate
  }
  return undefined
}

export function installServe(core: Core): void {
  const doors = new Set<WebSocketDoor>()
  core.use(
    {
      stop: async () => {
        await Promise.all([...doors].map((d) => d.close()))
      },
    },
    {
      'serve.open': async (a, ctx) => {
        const root = findRendererDir()
        if (!root) throw new BerthError('unavailable', 'the UI is not built: run npm run build first')
        const door = await WebSocketDoor.open(core, { port: a.port ?? 0, rendererRoot: root })
        doors.add(door)
        // the door lives as long as this stream: its owner's connection closing closes it
        const streamId = core.hub.create(ctx.owner)
        const noop = () => undefined
        core.hub.attach(streamId, { write: noop, end: noop, resize: noop, pause: noop, resume: noop, close: () => void door.close() })
        door.onClose = () => {
          doors.delete(door)
          core.hub.exit(streamId, 0)
        }
        return { url: door.url, port: door.boundPort, streamId }
      },
    },
  )
}
