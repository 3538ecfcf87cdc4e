// The tray / menu bar, kept thin: running sessions and what they cost, "Pause all and wait"
// (the lid-close path by hand), open the window, quit.
import { Menu, Tray, nativeImage } from 'electron'
import { join } from 'node:path'
import type { Core } from '../core/core'
import { pauseAllAndWait } from './pause-all'
import { notify } from './notifications'
import { trayMenuTemplate } from './tray-menu'

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
      if (name === 'session.changed' || name === 'meter.sampled') this.refreshSoon()
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
              (r) => notify(r.ok ? 'Every session is paused' : 'Some sessions did not pause', r.message),
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
