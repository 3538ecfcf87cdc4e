// Launch at login: on by default where the machine has a battery (a laptop: its sessions pause at
// lid close only while Berth runs). macOS and Windows through Electron's login items; Linux through
// an XDG autostart entry (~/.config/autostart/berth.desktop), which Electron does not write.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Settings } from '../../shared/settings'

/** The argument the app is started with at login: it comes up in the tray, without a window. */
export const HIDDEN_ARG = '--hidden'

export function hasBattery(platform: NodeJS.Platform = process.platform, powerSupplies = '/sys/class/power_supply', pmset?: () => string): boolean {
  if (platform === 'linux') {
    try {
      return readdirSync(powerSupplies).some((d) => {
        try {
          return readFileSync(join(powerSupplies, d, 'type'), 'utf8').trim() === 'Battery'
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  }
  if (platform === 'darwin' && pmset) return /InternalBattery/.test(pmset())
  return false
}

export function wantsLaunchAtLogin(setting: Settings['launchAtLogin'], battery: () => boolean): boolean {
  return setting === 'on' || (setting === 'auto' && battery())
}

/** The XDG autostart entry that starts the app in its tray. */
export function autostartEntry(exec: string[]): string {
  const quoted = exec.map((a) => (/[\s"'\\$`]/.test(a) ? `"${a.replace(/(["\\$`])/g, '\\$1')}"` : a)).join(' ')
  return ['[Desktop Entry]', 'Type=Application', 'Name=Berth', 'Comment=Keeps your sandbox sessions: pauses them before the lid closes', `Exec=${quoted}`, 'Icon=berth-desktop', 'Terminal=false', 'X-GNOME-Autostart-enabled=true', ''].join('\n')
}

export const autostartFile = (configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config')) => join(configHome, 'autostart', 'berth.desktop')

/** Writes or removes the Linux autostart entry; returns whether the app now starts at login. */
export function applyLinuxAutostart(on: boolean, exec: string[], file = autostartFile()): boolean {
  if (on) {
    mkdirSync(join(file, '..'), { recursive: true })
    writeFileSync(file, autostartEntry(exec), { mode: 0o644 })
  } else if (existsSync(file)) rmSync(file)
  return on
}
