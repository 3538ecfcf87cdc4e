// The application menu, on every platform (macOS puts it at the top of the screen, Linux and
// Windows in the window): Berth's own actions, and the standard Edit, View and Window roles that
// make copy and paste, zoom and full screen work as in any app.
import type { MenuItemConstructorOptions } from 'electron'

export interface MenuActions {
  showWindow(): void
  pauseAllAndWait(): void
  installCommandLine(): void
  openLogs(): void
  quit(): void
}

export function menuTemplate(a: MenuActions, platform: NodeJS.Platform = process.platform, dev = false): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin'
  const berthItems: MenuItemConstructorOptions[] = [
    { label: 'Show Berth', accelerator: 'CmdOrCtrl+0', click: a.showWindow },
    { label: 'Pause All and Wait', click: a.pauseAllAndWait },
    { type: 'separator' },
    { label: 'Install Command Line Tool…', click: a.installCommandLine },
    { label: 'Open Logs', click: a.openLogs },
  ]
  const quit: MenuItemConstructorOptions = { label: 'Quit Berth', accelerator: 'CmdOrCtrl+Q', click: a.quit }
  return [
    ...(mac
      ? [{ label: 'Berth', submenu: [{ role: 'about' }, { type: 'separator' }, ...berthItems, { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, quit] } as MenuItemConstructorOptions]
      : [{ label: 'File', submenu: [...berthItems, { type: 'separator' }, quit] } as MenuItemConstructorOptions]),
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...(dev ? ([{ role: 'reload' }, { role: 'toggleDevTools' }, { type: 'separator' }] as MenuItemConstructorOptions[]) : []),
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    { role: 'help', submenu: [{ label: 'Open Logs', click: a.openLogs }, { label: 'Install Command Line Tool…', click: a.installCommandLine }] },
  ]
}
