// The hook sleep automation calls, for the platform: on Linux a systemd system-sleep script (run as
// root with "pre"/"post"), on macOS lines in sleepwatcher's ~/.sleep and ~/.wakeup. Both run
// `berth power suspend` before sleep (pause per the sleep policy, durably) and `berth power resume`
// after, as the user whose Berth it is.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { shq } from '../engines/engine'
import { LOGIND_DROP_IN, neededWindowSeconds } from '../settings/sleep-window'

export type HookPlatform = 'linux' | 'darwin'
export const HOOK_MARK = '# berth-sleep-hook'

export interface HookTarget {
  platform: HookPlatform
  /** where to write (Linux: the system-sleep folder; macOS: the home folder holding .sleep/.wakeup) */
  dir?: string | undefined
  /** how to run berth: [node, script] or [binary] */
  berth: string[]
  home: string
  user: string
  uid: number
}

export interface HookFile {
  path: string
  content: string
  /** 0755 (a script, the default) or 0644 (a configuration file) */
  mode?: number
}

/**
 * How a hook runs this very berth: the desktop app's launcher when it was started through one
 * (BERTH_LAUNCHER, set by resources/bin/berth and by the app: Electron's binary with a script would
 * open the app, not the CLI), else this Node with this script.
 */
export function berthCommand(entry: string | undefined, env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (env.BERTH_LAUNCHER) return [env.BERTH_LAUNCHER]
  if (process.versions.electron || !entry) return undefined
  return [process.execPath, entry]
}

export function defaultHookDir(platform: HookPlatform): string {
  if (platform === 'darwin') return homedir()
  return existsSync('/usr/lib/systemd/system-sleep') || !existsSync('/lib/systemd') ? '/usr/lib/systemd/system-sleep' : '/lib/systemd/system-sleep'
}

const command = (t: HookTarget, verb: 'suspend' | 'resume') => `${t.berth.map(shq).join(' ')} power ${verb}`

export function linuxHook(t: HookTarget): string {
  const asUser = t.uid === 0 ? '' : `runuser -u ${shq(t.user)} -- `
  return `#!/bin/sh
${HOOK_MARK}: written by \`berth power install-hook\`.
# systemd-sleep runs this as root: $1 is pre or post, $2 suspend, hibernate, hybrid-sleep...
# Before sleep, Berth pauses sessions per its sleep policy and returns once the pauses are durable;
# after, it reconciles and resumes what the policy paused. Sleep never waits on a Berth failure.
case "$1" in
  pre) verb=suspend ;;
  post) verb=resume ;;
  *) exit 0 ;;
esac
${asUser}env BERTH_HOME=${shq(t.home)} ${t.berth.map(shq).join(' ')} power "$verb" >>${shq(join(t.home, 'sleep-hook.log'))} 2>&1 || true
exit 0
`
}

/** sleepwatcher runs ~/.sleep before sleep and ~/.wakeup after wake, as the user. */
export function darwinLines(t: HookTarget): { sleep: string; wakeup: string } {
  const env = `BERTH_HOME=${shq(t.home)}`
  return {
    sleep: `${env} ${command(t, 'suspend')} >>${shq(join(t.home, 'sleep-hook.log'))} 2>&1 ${HOOK_MARK}`,
    wakeup: `${env} ${command(t, 'resume')} >>${shq(join(t.home, 'sleep-hook.log'))} 2>&1 ${HOOK_MARK}`,
  }
}

/** Replaces Berth's line in a sleepwatcher script, keeping whatever else the user has there. */
export function withHookLine(existing: string | undefined, line: string): string {
  const kept = (existing ?? '#!/bin/sh\n').split('\n').filter((l) => !l.includes(HOOK_MARK))
  while (kept.length && kept[kept.length - 1] === '') kept.pop()
  return [...kept, line, ''].join('\n')
}

export function hookFiles(t: HookTarget): HookFile[] {
  const dir = t.dir ?? defaultHookDir(t.platform)
  if (t.platform === 'linux') return [{ path: join(dir, 'berth'), content: linuxHook(t) }]
  const lines = darwinLines(t)
  const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : undefined)
  return [
    { path: join(dir, '.sleep'), content: withHookLine(read(join(dir, '.sleep')), lines.sleep) },
    { path: join(dir, '.wakeup'), content: withHookLine(read(join(dir, '.wakeup')), lines.wakeup) },
  ]
}

/** The drop-in that gives logind's delay inhibitors (Berth's pause) NEED_MS and a margin. */
export function logindDropIn(needMs: number, path = LOGIND_DROP_IN): HookFile {
  const seconds = neededWindowSeconds(needMs)
  return {
    path,
    mode: 0o644,
    content: `${HOOK_MARK}: written by \`berth power install-hook --logind\`.
# logind waits this long for Berth to pause the sessions before the machine sleeps (its default is
# 5 s); the running sessions needed about ${(needMs / 1000).toFixed(1)} s when this was written.
[Login]
InhibitDelayMaxSec=${seconds}
`,
  }
}

/** Writes the files atomically, executable. */
export function writeHookFiles(files: HookFile[]): void {
  for (const f of files) {
    mkdirSync(join(f.path, '..'), { recursive: true })
    const tmp = `${f.path}.berth-${process.pid}.tmp`
    writeFileSync(tmp, f.content, { mode: f.mode ?? 0o755 })
    chmodSync(tmp, f.mode ?? 0o755)
    renameSync(tmp, f.path)
  }
}

export function hookNote(platform: HookPlatform, files: HookFile[]): string {
  if (platform === 'linux') return `systemd runs ${files[0]!.path} before and after every sleep`
  return `sleepwatcher runs ${files.map((f) => f.path).join(' and ')} (install it with \`brew install sleepwatcher\` and start its service: \`brew services start sleepwatcher\`)`
}

/** The sleep hook this machine has (berth doctor): its file, and the program it runs (null if unreadable). */
export function installedHook(platform: HookPlatform, dirs?: string[]): { path: string; program: string | null } | null {
  const files =
    platform === 'linux'
      ? (dirs ?? ['/usr/lib/systemd/system-sleep', '/lib/systemd/system-sleep', '/etc/systemd/system-sleep']).map((d) => join(d, 'berth'))
      : [join(dirs?.[0] ?? homedir(), '.sleep')]
  for (const path of files) {
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      continue
    }
    if (!text.includes(HOOK_MARK)) continue
    // the line that runs berth: env BERTH_HOME='...' 'PROGRAM' ... power ...
    const m = /BERTH_HOME=(?:'(?:[^']|'\\'')*'|\S+) ('(?:[^']|'\\'')*'|\S+)/.exec(text)
    const token = m?.[1]
    const program = token ? (token.startsWith("'") ? token.slice(1, -1).replace(/'\\''/g, "'") : token) : null
    return { path, program }
  }
  return null
}
