// The Electron shell: hosts the same core as `berth daemon` and adds only what needs Electron:
// the window, the typed IPC door, powerMonitor, the tray, notifications, the application menu,
// launch at login and the berth command it carries. The CLI keeps talking to the app through the
// same control socket.
import { app, BrowserWindow, ipcMain, clipboard, dialog, Menu, shell } from 'electron'
import { execFileSync } from 'node:child_process'
import type { Server } from 'node:net'
import { join } from 'node:path'
import type { Settings } from '../shared/settings'
import { Core } from './core/core'
import { berthHome } from './core/home'
import { installModules } from './core/modules'
import { installServe } from './serve'
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
import { menuTemplate } from './electron/app-menu'
import { installCommandLine } from './electron/cli-tool'
import { applyLinuxAutostart, hasBattery, HIDDEN_ARG, wantsLaunchAtLogin } from './electron/login-item'
import { pauseAllAndWait } from './electron/pause-all'
import { notify } from './electron/notifications'
import { logsDir, RotatingLog, teeStderr } from './core/logs/rotating-log'

const bundleDir = __dirname
const resourcesDir = app.isPackaged ? join(process.resourcesPath, 'resources') : join(bundleDir, '..', '..', 'resources')
/** the berth command the app carries (resources/bin/berth in the package, the checkout's in dev) */
const launcher = app.isPackaged ? join(process.resourcesPath, 'bin', 'berth') : join(bundleDir, '..', '..', 'bin', 'berth')
// the sleep hooks and anything else that runs berth again go through it
process.env.BERTH_LAUNCHER ??= launcher
const home = berthHome()
teeStderr(new RotatingLog(logsDir(home), 'app'), !app.isPackaged)

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
  ipcMain.handle('berth:open-logs', async (e) => fromOwnPage(e) && (await openLogs()))
  ipcMain.handle('berth:install-command-line', async (e) => (fromOwnPage(e) ? await installCli() : { ok: false, path: null, message: 'refused' }))
}

async function openLogs(): Promise<boolean> {
  return (await shell.openPath(logsDir(home))) === ''
}

async function installCli() {
  const r = await installCommandLine(launcher, { appImage: process.env.APPIMAGE })
  notify(r.ok ? 'The berth command is installed' : 'The berth command is not installed', r.message)
  return r
}

/** Launch at login, as the setting says (auto: on where the machine has a battery). */
function applyLoginItem(setting: Settings['launchAtLogin']): void {
  if (!app.isPackaged) return // a checkout's Electron is no app to start at login
  const pmset = () => execFileSync('pmset', ['-g', 'batt'], { encoding: 'utf8', timeout: 3000 })
  const on = wantsLaunchAtLogin(setting, () => hasBattery(process.platform, undefined, pmset))
  if (process.platform === 'linux') applyLinuxAutostart(on, [process.env.APPIMAGE ?? process.execPath, HIDDEN_ARG])
  else app.setLoginItemSettings({ openAtLogin: on, args: [HIDDEN_ARG] })
}

function applicationMenu(c: Core): void {
  const template = menuTemplate(
    {
      showWindow,
      pauseAllAndWait: () =>
        void pauseAllAndWait(c).then(
          (r) => notify(r.ok ? 'Sessions paused' : 'Some sessions did not pause', r.message),
          (e: Error) => notify('Pause all failed', e.message),
        ),
      installCommandLine: () => void installCli(),
      openLogs: () => void openLogs(),
      quit: () => app.quit(),
    },
    process.platform,
    !app.isPackaged,
  )
  Menu.setApplicationMenu(Menu.buildFromTemplate(template))
}

async function start(): Promise<void> {
  const root = rendererDir(bundleDir)
  if (!rendererBuilt(root)) throw new Error(`the renderer is not built (${root}): run npm run build`)
  core = await openCoreTakingOver(home)
  // the same secret store as the daemon's; the app keeps a keychain copy of its key (when it drives the home)
  await keepSecretsKeyInKeychain(new FileSecretStore(home), log).catch((e: Error) => log(`secrets: the OS keychain step failed: ${e.message}`))
  installModules(core)
  installServe(core)
  control = await listenControlSocket(core, home)
  void core.start().catch((e: Error) => log(`start-up work failed: ${e.message}`))
  core.onShutdownRequest = () => app.quit()

  hardenSessions()
  serveAppProtocol(root)
  door = new ElectronIpcDoor(core, ipcMain, { isOwnPage })
  bindShellCalls()
  forwardPowerEvents(core)
  watchBackgroundWork(core, () => !!window && !window.isDestroyed() && window.isFocused())
  applicationMenu(core)
  applyLoginItem(core.settings.get().launchAtLogin)
  core.bus.onContract((name, payload) => {
    if (name === 'settings.changed') applyLoginItem((payload as Settings).launchAtLogin)
  })
  tray = new BerthTray(core, resourcesDir, showWindow, () => app.quit())
  // started at login: the tray only, until the user opens the window
  if (!process.argv.includes(HIDDEN_ARG) || !tray) showWindow()
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
