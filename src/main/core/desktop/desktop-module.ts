// What the desktop app and the browser UI need from the core beyond the foundation: views
// (tmux-backed terminals), a session's events log (live), and `berth serve`'s WebSocket door.
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { BerthError } from '../../../shared/errors'
import type { Core } from '../core'
import { ViewService } from '../sessions/views'
import { WebSocketDoor } from '../../doors/websocket'
import { rendererDir } from '../../doors/static-files'

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

export function installDesktop(core: Core): ViewService {
  const views = new ViewService(core.sessions, core.engines, core.hub, core.bus)
  const doors = new Set<WebSocketDoor>()

  core.eventsRepo.onAppend((e) => core.bus.emit('event.appended', e))

  core.use(
    {
      // terminals a crashed Berth left attached in running containers: nobody reads them
      start: () => void views.sweep(core.sessionsRepo.list({ state: 'running' })).catch(() => undefined),
      stop: async () => {
        await Promise.all([...doors].map((d) => d.close()))
      },
    },
    {
      'view.list': (a) => views.list(a.id),
      'view.open': (a, ctx) => views.openView(a.id, a, ctx.owner),
      'view.close': (a) => views.closeView(a.id, a.view),
      'serve.open': async (a, ctx) => {
        const root = findRendererDir()
        if (!root) throw new BerthError('internal', 'the UI is not built: run npm run build first')
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
  return views
}
