// The tray / menu bar, kept thin: running sessions and what they cost, "Pause all and wait"
// (the lid-close path by hand), open the window, quit.
import { Menu, Tray, nativeImage, type MenuItemConstructorOptions } from 'electron'
import { join } from 'node:path'
import type { Session } from '../../shared/models'
import type { Core } from '../core/core'
import { pauseAllAndWait } from './pause-all'
import { notify } from './notifications'

const money = (n: number) => `$${n.toFixed(2)}`

export function trayMenuTemplate(running: Session[], actions: { open(): void; pauseAll(): void; quit(): void }): MenuItemConstructorOptions[] {
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
    { label: 'Quit Berth', role: 'quit', click: actions.quit },
  ]
}

export class BerthTray {
  private readonly tray: Tray
  private timer: NodeJS.Timeout | undefined
  private readonly stop: () => void

  constructor(
    private readonly core: Core,
    resourcesDir: string,
    private readonly open: () => void,
    private readonly quit: () => void,
  ) {
    const icon =
      process.platform === 'darwin'
        ? nativeImage.createFromPath(join(resourcesDir, 'trayTemplate.png'))
        : nativeImage.createFromPath(join(resourcesDir, 'tray.png'))
    if (process.platform === 'darwin') icon.setTemplateImage(true)
    this.tray = new Tray(icon)
    this.tray.setToolTip('Berth')
    this.tray.on('click', () => this.open())
    this.stop = core.bus.onContract((name) => {
      if (name === 'session.changed') this.refreshSoon()
    })
    this.refresh()
  }

  private refreshSoon(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.refresh(), 400)
  }

  refresh(): void {
    const running = this.core.sessions.list({ state: 'running' })
    this.tray.setContextMenu(
      Menu.buildFromTemplate(
        trayMenuTemplate(running, {
          open: this.open,
          quit: this.quit,
          pauseAll: () => {
            void pauseAllAndWait(this.core).then(
              (r) => notify('Berth', r.message),
              (e: Error) => notify('Pause all did not finish', e.message),
            )
          },
        }),
      ),
    )
  }

  destroy(): void {
    clearTimeout(this.timer)
    this.stop()
    this.tray.destroy()
  }
}
