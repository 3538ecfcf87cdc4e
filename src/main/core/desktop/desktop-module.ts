// What the desktop app and the browser UI need from the core beyond the foundation: views
// (tmux-backed terminals) and a session's events log (live). `berth serve`'s door is the hosts' (serve.ts).
import type { Core } from '../core'
import { ViewService } from '../sessions/views'

export function installDesktop(core: Core): ViewService {
  const views = new ViewService(core.sessions, core.engines, core.hub, core.bus)

  core.eventsRepo.onAppend((e) => core.bus.emit('event.appended', e))

  core.use(
    {
      // terminals a crashed Berth left attached in running containers: nobody reads them
      start: () => void views.sweep(core.sessionsRepo.list({ state: 'running' })).catch(() => undefined),
    },
    {
      'view.list': (a) => views.list(a.id),
      'view.open': (a, ctx) => views.openView(a.id, a, ctx.owner),
      'view.close': (a) => views.closeView(a.id, a.view),
    },
  )
  return views
}
