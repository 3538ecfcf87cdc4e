import { execFileSync } from 'node:child_process'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import type { PowerEventResult } from '../../shared/contract'
import { BerthError } from '../../shared/errors'
import { berthHome } from '../../main/core/home'
import { berthCommand, hookFiles, hookNote, writeHookFiles, type HookPlatform } from '../../main/core/power/sleep-hooks'
import { str, type Command, type Io } from '../command'
import { printJson, printTable, UsageError } from '../output'

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
    path: ['power', 'install-hook'],
    usage: 'berth power install-hook [--platform linux|darwin] [--dir DIR] [--json]',
    summary: 'write the hook that pauses sessions before the machine sleeps (Linux: systemd system-sleep; macOS: sleepwatcher)',
    group: 'power',
    options: {
      platform: { type: 'string', value: 'linux|darwin', help: 'the platform to write the hook for (default: this one)', complete: ['linux', 'darwin'] },
      dir: { type: 'string', value: 'DIR', help: 'where to write it (default: systemd\'s system-sleep folder; on macOS your home)', complete: 'file' },
    },
    positionals: [0, 0],
    async run(p, io) {
      const platform = (str(p, 'platform') ?? (process.platform === 'darwin' ? 'darwin' : 'linux')) as HookPlatform
      if (platform !== 'linux' && platform !== 'darwin') throw new UsageError(`not a platform: ${platform}`, this.usage)
      const owner = hookOwner()
      // the hook runs this very berth: the app's launcher, or the same node and script
      const berth = berthCommand(io.entry)!
      const files = hookFiles({ platform, dir: str(p, 'dir'), berth, home: owner.home, user: owner.user, uid: owner.uid })
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
