import { lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { menuTemplate } from './app-menu'
import { installCommandLine } from './cli-tool'
import { applyLinuxAutostart, autostartEntry, hasBattery, wantsLaunchAtLogin } from './login-item'

const tmp = mkdtempSync(join(tmpdir(), 'berth-shell-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

describe('launch at login', () => {
  it('is on by default where the machine has a battery', () => {
    const supplies = join(tmp, 'power_supply')
    mkdirSync(join(supplies, 'AC'), { recursive: true })
    writeFileSync(join(supplies, 'AC', 'type'), 'Mains\n')
    expect(hasBattery('linux', supplies)).toBe(false)
    mkdirSync(join(supplies, 'BAT0'))
    writeFileSync(join(supplies, 'BAT0', 'type'), 'Battery\n')
    expect(hasBattery('linux', supplies)).toBe(true)
    expect(hasBattery('darwin', supplies, () => 'Now drawing from \'AC Power\'\n -InternalBattery-0 (id=1)\t100%;')).toBe(true)
    expect(wantsLaunchAtLogin('auto', () => true)).toBe(true)
    expect(wantsLaunchAtLogin('auto', () => false)).toBe(false)
    expect(wantsLaunchAtLogin('on', () => false)).toBe(true)
    expect(wantsLaunchAtLogin('off', () => true)).toBe(false)
  })

  it('writes and removes the XDG autostart entry on Linux, starting the app in its tray', () => {
    const file = join(tmp, 'autostart', 'berth.desktop')
    applyLinuxAutostart(true, ['/opt/Berth/berth-desktop', '--hidden'], file)
    expect(readFileSync(file, 'utf8')).toContain('Exec=/opt/Berth/berth-desktop --hidden\n')
    expect(autostartEntry(['/home/a b/Berth.AppImage', '--hidden'])).toContain('Exec="/home/a b/Berth.AppImage" --hidden')
    applyLinuxAutostart(false, [], file)
    expect(() => lstatSync(file)).toThrow()
  })
})

describe('install command line tool', () => {
  it('links berth to the launcher in the first folder it can write, and says when that is not on the PATH', async () => {
    const launcher = join(tmp, 'Berth', 'resources', 'bin', 'berth')
    const locked = join(tmp, 'locked')
    mkdirSync(locked)
    writeFileSync(join(locked, 'berth'), 'someone else\'s berth')
    const local = join(tmp, 'home', '.local', 'bin')
    const r = await installCommandLine(launcher, { platform: 'linux', dirs: [local] })
    expect(r).toMatchObject({ ok: true, path: join(local, 'berth') })
    expect(r.message).toContain(`add ${local} to your PATH`)
    expect(readlinkSync(join(local, 'berth'))).toBe(launcher)
    // again: the same link stays; a file that is not Berth's link is never replaced
    expect((await installCommandLine(launcher, { platform: 'linux', dirs: [local] })).ok).toBe(true)
    const refused = await installCommandLine(launcher, { platform: 'linux', dirs: [locked] })
    expect(refused).toMatchObject({ ok: false, path: null })
    expect(refused.message).toContain('exists and is not a link Berth made')
    expect(readFileSync(join(locked, 'berth'), 'utf8')).toBe("someone else's berth")
  })

  it('asks for an administrator on macOS when /usr/local/bin is not writable, and refuses from an AppImage', async () => {
    const scripts: string[] = []
    // as a user who may not write the system folder (the test runs as root, so the link says so)
    const denied = () => {
      throw Object.assign(new Error('permission denied'), { code: 'EACCES' })
    }
    const system = join(tmp, 'usr-local-bin')
    const r = await installCommandLine('/Applications/Berth.app/Contents/Resources/bin/berth', { platform: 'darwin', dirs: [system], link: denied, admin: async (s) => void scripts.push(s) })
    expect(r).toMatchObject({ ok: true, path: join(system, 'berth') })
    expect(scripts).toEqual([`mkdir -p '${system}' && ln -sfn '/Applications/Berth.app/Contents/Resources/bin/berth' '${join(system, 'berth')}'`])
    const linux = await installCommandLine('/opt/Berth/resources/bin/berth', { platform: 'linux', dirs: [system], link: denied, admin: async () => void scripts.push('never') })
    expect(linux).toMatchObject({ ok: false })
    expect(linux.message).toBe('could not install the berth command: permission denied')
    expect(scripts).toHaveLength(1)
    const image = await installCommandLine('/tmp/.mount_x/resources/bin/berth', { appImage: '/home/a/Berth.AppImage' })
    expect(image.ok).toBe(false)
    expect(image.message).toContain('install the .deb package')
  })
})

describe('the application menu', () => {
  const noop = () => undefined
  const actions = { showWindow: noop, pauseAllAndWait: noop, installCommandLine: noop, openLogs: noop, quit: noop }
  const labels = (items: ReturnType<typeof menuTemplate>) => items.map((i) => i.label ?? i.role)
  it('has Berth\'s actions, Edit, View, Window and Help on every platform', () => {
    expect(labels(menuTemplate(actions, 'darwin'))).toEqual(['Berth', 'editMenu', 'View', 'windowMenu', 'help'])
    for (const p of ['linux', 'win32'] as const) {
      const m = menuTemplate(actions, p)
      expect(labels(m)).toEqual(['File', 'editMenu', 'View', 'windowMenu', 'help'])
      const file = (m[0]!.submenu as Array<{ label?: string }>).map((i) => i.label).filter(Boolean)
      expect(file).toEqual(['Show Berth', 'Pause All and Wait', 'Install Command Line Tool…', 'Open Logs', 'Quit Berth'])
    }
  })
})
