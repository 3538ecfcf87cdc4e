// The Electron shell: hosts the same core as `berth daemon` and adds only what needs Electron:
// the window, the typed IPC door, powerMonitor, the tray and notifications. The CLI keeps
// talking to the app through the same control socket.
import { app, BrowserWindow, ipcMain, clipboard, dialog, Menu } from 'electron'
import type { Server } from 'node:net'
import { join } from 'node:path'
import { Core } from './core/core'
import { berthHome } from './core/home'
import { installModules } from './core/modules'
import { listenControlSocket } from './doors/control-socket'
import { ElectronIpcDoor } from './doors/electron-ipc'
import { rendererDir, rendererBuilt } from './doors/static-files'
import { log } from './daemon'
import { APP_ORIGIN, isOwnPage, registerAppScheme, serveAppProtocol } from './electron/app-protocol'
import { guardWebContents, hardenSessions, openExternalIfAllowed } from './electron/security'
import { createMainWindow } from './electron/window'
import { BerthTray } from './electron/tray'
import { watchBackgroundWork } from './electron/notifications'
import { forwardPowerEvents } from './electron/power'
import { keepSecretsKeyInKeychain } from './electron/secret-store'
import { FileSecretStore } from './core/secrets/secret-store'
import { openCoreTakingOver } from './electron/takeover'

const bundleDir = __dirname
const resourcesDir = app.isPackaged ? join(process.resourcesPath, 'resources') : join(bundleDir, '..', '..', 'resources')

registerAppScheme()
app.enableSandbox()
guardWebContents()

let core: Core | undefined
let control: Server | undefined
let door: ElectronIpcDoor | undefined
let tray: BerthTray | undefined
let window: BrowserWindow | undefined
let quitting = false

function showWindow(): void {
  if (!window || window.isDestroyed()) {
    window = createMainWindow(bundleDir, join(resourcesDir, 'icon.png'))
    // closing the window keeps the app (and its sessions' care) in the tray
    window.on('close', (e) => {
      if (!quitting && tray) {
        e.preventDefault()
        window?.hide()
      }
    })
  } else {
    if (window.isMinimized()) window.restore()
    window.show()
    window.focus()
  }
}

/** The few things the page asks of the shell itself, checked like the contract calls. */
function bindShellCalls(): void {
  const fromOwnPage = (e: Electron.IpcMainInvokeEvent) => !!e.senderFrame && e.senderFrame.parent === null && isOwnPage(e.senderFrame.url)
  ipcMain.handle('berth:open-external', (e, url: unknown) => fromOwnPage(e) && typeof url === 'string' && openExternalIfAllowed(url))
  ipcMain.handle('berth:clipboard-read', (e) => (fromOwnPage(e) ? clipboard.readText() : ''))
  ipcMain.handle('berth:clipboard-write', (e, text: unknown) => {
    if (fromOwnPage(e) && typeof text === 'string' && text.length <= 10_000_000) clipboard.writeText(text)
  })
}

async function start(): Promise<void> {
  const home = berthHome()
  const root = rendererDir(bundleDir)
  if (!rendererBuilt(root)) throw new Error(`the renderer is not built (${root}): run npm run build`)
  core = await openCoreTakingOver(home)
  // the same secret store as the daemon's; the app keeps a keychain copy of its key (when it drives the home)
  await keepSecretsKeyInKeychain(new FileSecretStore(home), log).catch((e: Error) => log(`secrets: the OS keychain step failed: ${e.message}`))
  installModules(core)
  control = await listenControlSocket(core, home)
  void core.start().catch((e: Error) => log(`start-up work failed: ${e.message}`))
  core.onShutdownRequest = () => app.quit()

  hardenSessions()
  serveAppProtocol(root)
  door = new ElectronIpcDoor(core, ipcMain, { isOwnPage })
  bindShellCalls()
  forwardPowerEvents(core)
  watchBackgroundWork(core, () => !!window && !window.isDestroyed() && window.isFocused())
  if (process.platform !== 'darwin') Menu.setApplicationMenu(null)
  tray = new BerthTray(core, resourcesDir, showWindow, () => app.quit())
  showWindow()
  log(`Berth ${app.getVersion()} drives the engines for ${home}; the page is ${APP_ORIGIN}`)
}

if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  app.on('second-instance', () => showWindow())
  app.on('activate', () => showWindow())
  app.on('window-all-closed', () => {
    // the tray keeps Berth alive; without one (no tray support) closing the window quits
    if (!tray) app.quit()
  })
  app.on('before-quit', (event) => {
    if (quitting) return
    quitting = true
    event.preventDefault()
    void (async () => {
      tray?.destroy()
      door?.close()
      control?.close()
      await core?.close().catch(() => undefined)
      app.exit(0)
    })()
  })
  app
    .whenReady()
    .then(start)
    .catch((e: Error) => {
      log(`Berth could not start: ${e.message}`)
      dialog.showErrorBox('Berth could not start', e.message)
      app.exit(1)
    })
}
