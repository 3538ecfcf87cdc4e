import { execFileSync } from 'node:child_process'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import type { PowerDoctor, PowerEventResult } from '../../shared/contract'
import { BerthError } from '../../shared/errors'
import { bytes } from '../../shared/format'
import { berthHome } from '../../main/core/home'
import { berthCommand, hookFiles, hookNote, logindDropIn, writeHookFiles, type HookPlatform } from '../../main/core/power/sleep-hooks'
import { bool, str, type Command, type Io } from '../command'
import { ControlClient, controlSocket } from '../../main/doors/control-client'
import { printFields, printJson, printTable, say, UsageError, warn } from '../output'

const SIMULATE_USAGE = 'berth power simulate suspend|resume [--json]'

async function powerEvent(io: Io, event: 'suspend' | 'resume'): Promise<number> {
  const r = await (await io.client()).call('power.event', { event })
  if (io.json) printJson(r)
  else printPowerEvent(r)
  const failed = [...r.paused, ...r.resumed].filter((x) => x.error)
  return failed.length ? 1 : 0
}

function printPowerEvent(r: PowerEventResult): void {
  const rows = [
    ...r.paused.map((x) => [x.name, x.error ? `pause failed: ${x.error.message}` : x.result?.paused ? `paused (${x.result.mode}${x.result.durable ? ', durable' : ''})` : 'already paused']),
    ...r.resumed.map((x) => [x.name, x.error ? `resume failed: ${x.error.message}` : x.result?.resumed ? `resumed (${x.result.mode})` : 'already running']),
  ]
  process.stdout.write(`${r.event}: sleep policy "${r.policy}", ${r.reconciled} reconciled, inhibitor ${r.inhibitor}, ${(r.ms / 1000).toFixed(1)} s\n`)
  if (rows.length) printTable(rows, ['SESSION', 'RESULT'])
}

function printDoctor(d: PowerDoctor): void {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`
  printFields([
    ['sleep window', d.window.seconds === null ? 'none' : `${d.window.seconds} s`],
    ['', d.window.note],
    ['pause deadline', s(d.deadlineMs)],
    ['sessions need', d.sessions.length ? s(d.needMs) : 'nothing (no session is running)'],
    ['fits', d.fits === null ? 'the OS does not wait' : d.fits ? 'yes' : 'no'],
    ['sleep hook', d.hook.installed ? `installed (${d.hook.path})` : 'not installed'],
  ])
  if (d.sessions.length) {
    const plan = { memory: 'memory written in the window', 'frozen-then-memory': 'frozen, memory written after', frozen: 'frozen (no memory dump on its server)' } as const
    printTable(
      d.sessions.map((x) => [x.name, x.server, x.memoryBytes === null ? '?' : bytes(x.memoryBytes), x.estimateMs === null ? '-' : s(x.estimateMs), plan[x.plan]]),
      ['SESSION', 'SERVER', 'MEMORY', 'DUMP', 'AT SLEEP'],
    )
  }
  process.stdout.write(`${d.advice}\n`)
}

/** The user whose Berth the hook drives: under sudo, the one who ran sudo. */
function hookOwner(): { user: string; uid: number; home: string } {
  const me = userInfo()
  const sudoUser = process.env.SUDO_USER
  if (me.uid === 0 && sudoUser && sudoUser !== 'root') {
    const entry = execFileSync('getent', ['passwd', sudoUser], { encoding: 'utf8' }).trim().split(':')
    const homeDir = entry[5] ?? join('/home', sudoUser)
    return { user: sudoUser, uid: Number(entry[2] ?? 1000), home: process.env.BERTH_HOME ?? berthHome({ ...process.env, HOME: homeDir, XDG_CONFIG_HOME: join(homeDir, '.config') }) }
  }
  return { user: me.username, uid: me.uid, home: process.env.BERTH_HOME ?? berthHome() }
}

export const powerCommands: Command[] = [
  {
    path: ['power', 'suspend'],
    usage: 'berth power suspend [--json]',
    summary: 'what the sleep hook runs before sleep: pause per the sleep policy, durably',
    group: 'power',
    positionals: [0, 0],
    run: (_p, io) => powerEvent(io, 'suspend'),
  },
  {
    path: ['power', 'resume'],
    usage: 'berth power resume [--json]',
    summary: 'what the sleep hook runs after wake: reconcile, resume what the policy paused',
    group: 'power',
    positionals: [0, 0],
    run: (_p, io) => powerEvent(io, 'resume'),
  },
  {
    path: ['power', 'simulate'],
    usage: SIMULATE_USAGE,
    summary: 'drive the same path as the OS sleep and wake events',
    group: 'power',
    args: [{ name: 'EVENT', help: 'suspend (as before sleep) or resume (as after wake)', complete: ['suspend', 'resume'] }],
    positionals: [1, 1],
    async run(p, io) {
      const event = p.positionals[0]
      if (event !== 'suspend' && event !== 'resume') throw new UsageError(`not a power event: ${event}`, SIMULATE_USAGE)
      return await powerEvent(io, event)
    },
  },
  {
    path: ['power', 'doctor'],
    usage: 'berth power doctor [--json]',
    summary: "the OS's sleep window, how long pausing the running sessions needs, and whether it fits",
    group: 'power',
    positionals: [0, 0],
    async run(_p, io) {
      const d = await (await io.client()).call('power.doctor', {})
      if (io.json) printJson(d)
      else printDoctor(d)
      return 0
    },
  },
  {
    path: ['power', 'install-hook'],
    usage: 'berth power install-hook [--platform linux|darwin] [--dir DIR] [--logind] [--json]',
    summary:
      "write the hook that pauses sessions before the machine sleeps (Linux: systemd system-sleep; macOS: sleepwatcher); --logind also raises logind's sleep window to what the sessions need",
    group: 'power',
    options: {
      platform: { type: 'string', value: 'linux|darwin', help: 'the platform to write the hook for (default: this one)', complete: ['linux', 'darwin'] },
      dir: { type: 'string', value: 'DIR', help: 'where to write it (default: systemd\'s system-sleep folder; on macOS your home)', complete: 'file' },
      logind: { type: 'boolean', help: "also write /etc/systemd/logind.conf.d/berth.conf, raising logind's InhibitDelayMaxSec to what the running sessions need (as root)" },
    },
    positionals: [0, 0],
    async run(p, io) {
      const platform = (str(p, 'platform') ?? (process.platform === 'darwin' ? 'darwin' : 'linux')) as HookPlatform
      if (platform !== 'linux' && platform !== 'darwin') throw new UsageError(`not a platform: ${platform}`, this.usage)
      const owner = hookOwner()
      // the hook runs this very berth: the app's launcher, or the same node and script
      const berth = berthCommand(io.entry)!
      const files = hookFiles({ platform, dir: str(p, 'dir'), berth, home: owner.home, user: owner.user, uid: owner.uid })
      // what the running sessions need against the OS's window: raised with --logind (shown first), else a
      // warning; asked of the Berth that drives the owner's home when one runs (under sudo, never a root one)
      const doctor = await ControlClient.connect(controlSocket(owner.home))
        .then(async (c) => {
          try {
            return await c.call('power.doctor', {})
          } finally {
            c.close()
          }
        })
        .catch(() => undefined)
      if (bool(p, 'logind')) {
        if (platform !== 'linux') throw new UsageError('--logind is for Linux (logind); macOS has no sleep window to raise', this.usage)
        const dropIn = logindDropIn(doctor?.needMs ?? 0)
        if (!io.json) say(`writing ${dropIn.path}:\n${dropIn.content.replace(/^/gm, '  ')}`)
        files.push(dropIn)
      } else if (doctor?.fits === false && !io.json) {
        warn(`berth: warning: ${doctor.window.note}, but pausing the running sessions needs about ${(doctor.needMs / 1000).toFixed(1)} s; run again with --logind (as root) to raise it\n`)
      }
      try {
        writeHookFiles(files)
      } catch (e) {
        const code = (e as { code?: string }).code
        if (code === 'EACCES' || code === 'EPERM') {
          throw new BerthError('refused', `cannot write ${files[0]!.path}: permission denied; run it as root (sudo berth power install-hook)`)
        }
        throw e
      }
      const note = hookNote(platform, files)
      if (io.json) printJson({ platform, files, note })
      else process.stdout.write(`wrote ${files.map((f) => f.path).join(', ')}\n${note}\n`)
      return 0
    },
  },
]
