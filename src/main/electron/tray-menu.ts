// What the tray menu says (pure: unit-tested without Electron).
import type { MenuItemConstructorOptions } from 'electron'
import type { SessionSummary } from '../../shared/models'

const money = (n: number) => `$${n.toFixed(2)}`

export function trayMenuTemplate(running: SessionSummary[], actions: { open(): void; pauseAll(): void; quit(): void }): MenuItemConstructorOptions[] {
  const cost = running.reduce((sum, s) => sum + (s.meter?.cost ?? 0), 0)
  const rate = running.reduce((sum, s) => sum + (s.meter?.ratePerHour ?? 0), 0)
  const header = running.length
    ? `${running.length} running · ${money(cost)} so far${rate > 0 ? ` · ${money(rate)}/h` : ''}`
    : 'No session is running'
  return [
    { label: header, enabled: false },
    ...running.slice(0, 12).map((s) => ({
      label: `${s.name} — ${s.server}${s.meter ? ` — ${money(s.meter.cost)}` : ''}`,
      click: actions.open,
    })),
    ...(running.length > 12 ? [{ label: `and ${running.length - 12} more…`, click: actions.open }] : []),
    { type: 'separator' },
    { label: 'Pause all and wait', enabled: running.length > 0, click: actions.pauseAll },
    { label: 'Open Berth', click: actions.open },
    { type: 'separator' },
    { label: 'Quit Berth', click: actions.quit },
  ]
}
