// The OS's sleep window: how long the machine waits for Berth before it sleeps anyway. On Linux,
// logind waits for a delay inhibitor at most InhibitDelayMaxSec (5 s by default), read from the
// running logind when there is one, else from its configuration files as logind reads them. On
// macOS no app can delay sleep: only the sleepwatcher hook runs first.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'

export interface SleepWindow {
  /** seconds the OS waits; null where it does not wait for anyone */
  seconds: number | null
  /** where the figure comes from */
  source: 'logind' | 'logind.conf' | 'default' | 'none'
  /** what a user should know, in one sentence */
  note: string
}

/** logind's own default for InhibitDelayMaxSec. */
export const LOGIND_DEFAULT_S = 5
/** The drop-in `berth power install-hook --logind` writes. */
export const LOGIND_DROP_IN = '/etc/systemd/logind.conf.d/berth.conf'

/** A systemd time span ("5", "5s", "1min 30s", "500ms") in seconds; null if it is not one. */
export function parseTimeSpan(text: string): number | null {
  const t = text.trim().toLowerCase()
  if (/^\d+(\.\d+)?$/.test(t)) return Number(t)
  const units: Record<string, number> = { us: 1e-6, usec: 1e-6, ms: 1e-3, msec: 1e-3, s: 1, sec: 1, second: 1, seconds: 1, m: 60, min: 60, minute: 60, minutes: 60, h: 3600, hr: 3600, hour: 3600, hours: 3600 }
  let total = 0
  let rest = t
  while (rest.length) {
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]+)\s*/.exec(rest)
    if (!m || units[m[2]!] === undefined) return null
    total += Number(m[1]) * units[m[2]!]!
    rest = rest.slice(m[0].length)
  }
  return t.length ? total : null
}

/** InhibitDelayMaxSec from logind's configuration files, in the order logind reads them (the last wins). */
export function logindConfigured(root = '/'): { seconds: number; file: string } | null {
  const main = join(root, 'etc/systemd/logind.conf')
  const dirs = ['usr/lib/systemd/logind.conf.d', 'usr/local/lib/systemd/logind.conf.d', 'run/systemd/logind.conf.d', 'etc/systemd/logind.conf.d'].map((d) => join(root, d))
  // a drop-in of the same name in a later folder replaces the earlier one; all are read by name
  const byName = new Map<string, string>()
  for (const d of dirs) {
    if (!existsSync(d)) continue
    for (const f of readdirSync(d)) if (f.endsWith('.conf')) byName.set(f, join(d, f))
  }
  const files = [main, ...[...byName.keys()].sort().map((n) => byName.get(n)!)]
  let found: { seconds: number; file: string } | null = null
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    let section = ''
    for (const raw of text.split('\n')) {
      const line = raw.trim()
      if (!line || line.startsWith('#') || line.startsWith(';')) continue
      const sec = /^\[(.+)\]$/.exec(line)
      if (sec) {
        section = sec[1]!
        continue
      }
      const kv = /^InhibitDelayMaxSec\s*=\s*(.*)$/.exec(line)
      if (section === 'Login' && kv) {
        const s = parseTimeSpan(kv[1]!)
        if (s !== null) found = { seconds: s, file }
      }
    }
  }
  return found
}

/** InhibitDelayMaxUSec from the running logind, over D-Bus (busctl); null without one. */
function logindRunning(): Promise<number | null> {
  if (!existsSync('/run/systemd/seats')) return Promise.resolve(null)
  return new Promise((resolve) => {
    execFile('busctl', ['get-property', 'org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager', 'InhibitDelayMaxUSec'], { timeout: 1000 }, (err, stdout) => {
      const m = /^t\s+(\d+)/.exec(String(stdout ?? '').trim())
      resolve(err || !m ? null : Number(m[1]) / 1e6)
    })
  })
}

export async function sleepWindow(platform: NodeJS.Platform = process.platform, root = '/'): Promise<SleepWindow> {
  if (platform === 'darwin') {
    return { seconds: null, source: 'none', note: 'macOS lets no app delay sleep: only the sleepwatcher hook runs before the machine sleeps, and the system does not wait for it' }
  }
  if (platform !== 'linux') return { seconds: null, source: 'none', note: `${platform} gives Berth no sleep window to wait in` }
  const live = root === '/' ? await logindRunning() : null
  if (live !== null) return { seconds: live, source: 'logind', note: `logind waits ${live} s for Berth before the machine sleeps (InhibitDelayMaxSec)` }
  const conf = logindConfigured(root)
  if (conf) return { seconds: conf.seconds, source: 'logind.conf', note: `logind is set to wait ${conf.seconds} s (InhibitDelayMaxSec in ${basename(conf.file)})` }
  return { seconds: LOGIND_DEFAULT_S, source: 'default', note: `logind waits ${LOGIND_DEFAULT_S} s by default (InhibitDelayMaxSec)` }
}

/** The deadline of the lid-close pauses: the setting, else the window less half a second (20 s where the OS gives none). */
export function lidCloseDeadlineMs(setting: number | null, window: SleepWindow): number {
  if (setting) return Math.round(setting * 1000)
  if (window.seconds === null) return 20_000
  return Math.max(1000, Math.round(window.seconds * 1000) - 500)
}

/** Seconds to give logind so pauses that need NEED_MS fit, with a margin: what install-hook --logind writes. */
export function neededWindowSeconds(needMs: number): number {
  return Math.max(5, Math.ceil(needMs / 1000 + 0.5 + Math.max(2, needMs / 1000 / 4)))
}
