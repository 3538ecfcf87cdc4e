import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BerthError } from '../../shared/errors'
import { processExited } from '../../main/core/process-exit'
import { ControlClient, controlSocket, startDaemon, waitForDaemon } from '../../main/doors/control-client'
import { bool, type Command } from '../command'
import { printJson, say } from '../output'

export const daemonCommands: Command[] = [
  {
    path: ['daemon'],
    usage: 'berth daemon [--foreground]',
    summary: 'run the headless core (in the background unless --foreground)',
    group: 'berth',
    options: { foreground: { type: 'boolean', help: 'stay in the foreground, logging to stderr (what a service manager runs)' } },
    positionals: [0, 0],
    async run(p, io) {
      if (bool(p, 'foreground')) {
        // the core (and its native and network modules) loads only here: every other verb is a
        // client of the control socket and starts in a fraction of the time
        const { runDaemon, log } = await import('../../main/daemon')
        const { RotatingLog, logsDir, teeStderr } = await import('../../main/core/logs/rotating-log')
        // started by another verb: the log file only; by hand or by a service manager: stderr too
        teeStderr(new RotatingLog(logsDir(io.home), 'daemon'), process.env.BERTH_DAEMON_DETACHED !== '1')
        const d = await runDaemon(io.home)
        log(`berth daemon ${process.pid} drives the engines for ${io.home}`)
        const stop = () => void d.stop()
        process.on('SIGTERM', stop)
        process.on('SIGINT', stop)
        await d.stopped
        log('berth daemon stopped')
        return 0
      }
      try {
        const c = await ControlClient.connect(controlSocket(io.home))
        const info = await c.call('daemon.info', {})
        c.close()
        throw new BerthError('busy', `a Berth ${info.host} (pid ${info.pid}) already drives the engines for ${io.home}`)
      } catch (e) {
        if (e instanceof BerthError) throw e
      }
      startDaemon(io.home, io.entry)
      const c = await waitForDaemon(io.home, 15_000)
      const info = await c.call('daemon.info', {})
      c.close()
      if (io.json) printJson(info)
      else say(`berth daemon started (pid ${info.pid})\n`)
      return 0
    },
  },
  {
    path: ['shutdown'],
    usage: 'berth shutdown',
    summary: 'stop the daemon of this BERTH_HOME',
    group: 'berth',
    positionals: [0, 0],
    async run(_p, io) {
      let c: ControlClient
      try {
        c = await ControlClient.connect(controlSocket(io.home))
      } catch {
        if (io.json) printJson({ stopped: false })
        else say('no Berth daemon runs for this home\n')
        return 0
      }
      const info = await c.call('daemon.info', {})
      await c.call('daemon.shutdown', {})
      c.close()
      if (!(await processExited(info.pid, 15_000))) throw new BerthError('timeout', `the daemon (pid ${info.pid}) did not stop within 15 s`)
      const pidFile = join(io.home, 'daemon.pid')
      if (existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() === String(info.pid)) {
        throw new BerthError('internal', 'the daemon stopped without cleaning up its pid file')
      }
      if (io.json) printJson({ stopped: true, pid: info.pid })
      else say(`berth daemon ${info.pid} stopped\n`)
      return 0
    },
  },
]
