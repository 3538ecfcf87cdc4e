// The one window: sandboxed renderer, context isolation, no Node, our page only.
import { BrowserWindow, nativeTheme } from 'electron'
import { join } from 'node:path'
import { APP_URL } from './app-protocol'

export function createMainWindow(bundleDir: string, iconPath: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 820,
    minWidth: 760,
    minHeight: 480,
    show: false,
    title: 'Berth',
    icon: iconPath,
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#11161b' : '#f6f7f9',
    autoHideMenuBar: true,
    webPreferences: {
      preload: join(bundleDir, '..', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
      navigateOnDragDrop: false,
    },
  })
  win.once('ready-to-show', () => win.show())
  void win.loadURL(APP_URL)
  return win
}
