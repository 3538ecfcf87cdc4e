// Plugs the power policy and idle auto-pause into the core: 'power.event' (the Electron shell
// forwards powerMonitor's suspend/resume to it), the sleep hooks, and `activity` in session show.
import { userInfo } from 'node:os'
import type { Core } from '../core'
import type { PauseService } from '../pause/pause-service'
import { IdleWatcher } from './idle-watcher'
import { PowerService } from './power-service'
import { SleepInhibitor } from './sleep-inhibitor'
import { hookFiles, hookNote, writeHookFiles, type HookPlatform } from './sleep-hooks'

export function installPower(core: Core, pause: PauseService): { power: PowerService; idle: IdleWatcher } {
  const settings = () => core.settings.get()
  const inhibitor = new SleepInhibitor()
  const power = new PowerService({
    sessions: core.sessionsRepo,
    settings,
    pause,
    inhibitor,
    holdInAdvance: core.options.host === 'electron',
    note: (kind, detail) => core.eventsRepo.append({ sessionId: null, kind, detail }),
  })
  const idle = new IdleWatcher({ sessions: core.sessionsRepo, settings, bus: core.bus, hub: core.hub, pause })
  core.sessions.decorate(() => (row, model) => void (model.activity = idle.activity(row)))
  core.use(
    {
      async start() {
        idle.start()
        await power.start()
      },
      stop() {
        idle.stop()
        power.stop()
      },
    },
    {
      'power.event': (a) => power.handle(a.event),
      'power.installHook': (a) => {
        const platform: HookPlatform = a.platform ?? (process.platform === 'darwin' ? 'darwin' : 'linux')
        const me = userInfo()
        const files = hookFiles({ platform, dir: a.dir, berth: a.berth, home: core.options.home, user: me.username, uid: me.uid })
        writeHookFiles(files)
        return { platform, files, note: hookNote(platform, files) }
      },
    },
  )
  return { power, idle }
}
