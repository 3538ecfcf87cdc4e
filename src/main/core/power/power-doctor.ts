// `berth power doctor`: the OS's sleep window against what pausing the running sessions needs, from
// their sizes and each server's measured dump rate, and whether the sleep hook is in place.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { PowerDoctor } from '../../../shared/contract'
import type { Settings } from '../../../shared/settings'
import type { PlannedDump } from '../pause/pause-planner'
import { FREEZE_MS, planNeedsMs } from '../pause/pause-planner'
import { lidCloseDeadlineMs, neededWindowSeconds, sleepWindow, type SleepWindow } from '../settings/sleep-window'
import type { SessionRow } from '../store/sessions-repo'
import { defaultHookDir, HOOK_MARK } from './sleep-hooks'

export interface DoctorDeps {
  settings: () => Settings
  running: () => SessionRow[]
  memoryOf: (sessionId: string) => number | null
  plan: (rows: SessionRow[], deadlineMs: number) => PlannedDump[]
  platform?: NodeJS.Platform
  home: string
}

export function hookInstalled(platform: NodeJS.Platform): { installed: boolean; path: string | null } {
  const dir = defaultHookDir(platform === 'darwin' ? 'darwin' : 'linux')
  for (const path of platform === 'darwin' ? [join(dir, '.sleep')] : [join(dir, 'berth')]) {
    try {
      if (existsSync(path) && readFileSync(path, 'utf8').includes(HOOK_MARK)) return { installed: true, path }
    } catch {
      // unreadable: not ours to say
    }
  }
  return { installed: false, path: null }
}

export async function powerDoctor(d: DoctorDeps, window?: SleepWindow): Promise<PowerDoctor> {
  const platform = d.platform ?? process.platform
  const w = window ?? (await sleepWindow(platform))
  const deadlineMs = lidCloseDeadlineMs(d.settings().pauseDeadlineSeconds, w)
  const rows = d.running()
  const plans = d.plan(rows, deadlineMs)
  const byId = new Map(plans.map((p) => [p.id, p]))
  const needMs = rows.length ? planNeedsMs(plans) : 0
  const sessions = rows.map((r) => {
    const p = byId.get(r.id)
    return {
      id: r.id,
      name: r.name,
      server: r.server,
      memoryBytes: d.memoryOf(r.id),
      plan: !p ? ('frozen' as const) : p.fits ? ('memory' as const) : ('frozen-then-memory' as const),
      estimateMs: p?.estimateMs ?? null,
    }
  })
  const fits = w.seconds === null ? null : needMs <= deadlineMs
  const hook = hookInstalled(platform)
  const late = sessions.filter((s) => s.plan === 'frozen-then-memory').map((s) => s.name)
  let advice: string
  if (!hook.installed) advice = 'install the sleep hook (berth power install-hook) so sessions pause before the machine sleeps'
  else if (fits === false)
    advice = `the window is too short for ${late.join(', ')}: they freeze (memory kept in RAM, files durable) and their memory is written after wake; \`sudo berth power install-hook --logind\` raises logind's window to ${neededWindowSeconds(needMs)} s`
  else if (fits === null) advice = 'the OS does not wait for Berth: sessions freeze at once and their memory is written as long as the machine stays awake'
  else advice = `every running session's memory fits in the window (${(needMs / 1000).toFixed(1)} s of ${(deadlineMs / 1000).toFixed(1)} s)`
  return { platform, window: w, deadlineMs, needMs: rows.length ? Math.max(needMs, FREEZE_MS) : 0, fits, sessions, hook, advice }
}
