// Plugs the power policy and idle auto-pause into the core: 'power.event' (the Electron shell
// forwards powerMonitor's suspend/resume to it), the sleep hooks, and `activity` in session show.
import { userInfo } from 'node:os'
import { resolve } from 'node:path'
import { BerthError } from '../../../shared/errors'
import type { Core } from '../core'
import type { PauseService } from '../pause/pause-service'
import { MeterRepo } from '../store/meter-repo'
import { IdleWatcher } from './idle-watcher'
import { powerDoctor } from './power-doctor'
import { PowerService } from './power-service'
import { SleepInhibitor } from './sleep-inhibitor'
import { berthCommand, defaultHookDir, hookFiles, hookNote, logindDropIn, writeHookFiles, type HookPlatform } from './sleep-hooks'

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
  const meter = new MeterRepo(core.db)
  const doctor = () =>
    powerDoctor({
      settings,
      running: () => core.sessionsRepo.inStates(['running']).filter((r) => power.covered(r, settings().onSleep === 'nothing' ? 'all' : settings().onSleep)),
      memoryOf: (id) => meter.get(id)?.memory || null,
      plan: (rows, deadlineMs) => pause.plan(rows, deadlineMs),
      home: core.options.home,
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
      'power.doctor': () => doctor(),
      'power.installHook': async (a, ctx) => {
        const platform: HookPlatform = a.platform ?? (process.platform === 'darwin' ? 'darwin' : 'linux')
        // an executable written where a door asks, run as root at every sleep: the control socket
        // (the user's own shell, which could write the file itself) may name any folder and the
        // command it runs; every other door (the app's page, a browser tab) only one of the folders
        // sleep hooks live in, running Berth's own berth command
        if (a.berth !== undefined && ctx.door !== 'control') throw new BerthError('refused', 'the command a sleep hook runs is chosen from the berth command line only')
        if (a.dir !== undefined && ctx.door !== 'control') {
          const known = platform === 'darwin' ? [defaultHookDir('darwin')] : ['/usr/lib/systemd/system-sleep', '/lib/systemd/system-sleep']
          if (!known.includes(resolve(a.dir))) throw new BerthError('refused', `not a folder sleep hooks live in: ${a.dir} (only ${known.join(' or ')}, or any folder from the berth command line)`)
        }
        const me = userInfo()
        // the daemon runs as `node berth.cjs daemon --foreground`: its own script is the CLI's
        const berth = a.berth ?? berthCommand(core.options.host === 'daemon' ? process.argv[1] : undefined)
        if (!berth) throw new BerthError('usage', 'say how the hook runs berth (this Berth was not started through its berth command)')
        const files = hookFiles({ platform, dir: a.dir, berth, home: core.options.home, user: me.username, uid: me.uid })
        if (a.logind && platform === 'linux') files.push(logindDropIn((await doctor()).needMs))
        try {
          writeHookFiles(files)
        } catch (e) {
          const code = (e as { code?: string }).code
          if (code === 'EACCES' || code === 'EPERM') throw new BerthError('refused', `cannot write ${files[0]!.path}: permission denied; run it as root: sudo ${berth.join(' ')} power install-hook`)
          throw e
        }
        return { platform, files, note: hookNote(platform, files) }
      },
    },
  )
  return { power, idle }
}
