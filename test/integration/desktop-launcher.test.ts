// The berth command an installed app carries: /usr/bin/berth -> resources/bin/berth, which runs
// the CLI from app.asar with the app's own Electron as Node. Electron cannot run here, so this
// machine's Node stands in for the app's binary (with ELECTRON_RUN_AS_NODE=1, Electron is Node);
// the launcher, its links, the CLI, the daemon it starts and the hooks it writes are the real ones.
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { VERSION } from '../../src/main/core/version'
import { BerthHome, childOutput, ROOT } from '../support/berth'
import { spawn } from 'node:child_process'

/** An installed app, laid out as the deb lays it out under /opt/Berth, with /usr/bin/berth. */
function installedApp(): { root: string; berth: string; launcher: string; app: string } {
  const root = mkdtempSync(join(tmpdir(), 'berth-installed-'))
  const opt = join(root, 'opt', 'Berth')
  const resources = join(opt, 'resources')
  mkdirSync(join(resources, 'bin'), { recursive: true })
  mkdirSync(join(resources, 'app.asar', 'out', 'cli'), { recursive: true })
  mkdirSync(join(root, 'usr', 'bin'), { recursive: true })
  symlinkSync(process.execPath, join(opt, 'berth-desktop'))
  copyFileSync(join(ROOT, 'resources', 'bin', 'berth'), join(resources, 'bin', 'berth'))
  chmodSync(join(resources, 'bin', 'berth'), 0o755)
  copyFileSync(join(ROOT, 'out', 'cli', 'berth.cjs'), join(resources, 'app.asar', 'out', 'cli', 'berth.cjs'))
  symlinkSync(join(ROOT, 'node_modules'), join(resources, 'app.asar', 'node_modules'))
  // as the deb's postinst makes it, and a relative link to it as a user might
  symlinkSync(join(resources, 'bin', 'berth'), join(root, 'usr', 'bin', 'berth'))
  return { root, berth: join(root, 'usr', 'bin', 'berth'), launcher: join(resources, 'bin', 'berth'), app: join(opt, 'berth-desktop') }
}

describe('the berth command of the installed app', () => {
  const installed = installedApp()
  const berth = new BerthHome('launcher')
  afterAll(async () => {
    await berth.cleanup()
    rmSync(installed.root, { recursive: true, force: true })
  })
  const run = async (args: string[], env: Record<string, string> = {}) => {
    const child = spawn(installed.berth, args, { env: { ...berth.env(), BERTH_LAUNCHER: '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
    const r = await childOutput(child, `berth ${args.join(' ')}`, undefined, 60_000)
    return { code: r.code, stdout: r.out.toString(), stderr: r.err.toString() }
  }

  it('runs the CLI in the app, through its links, and the daemon it starts', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${VERSION}\n` })
    const doctor = await run(['doctor', '--json'])
    expect(doctor.code, doctor.stderr).toBeLessThan(2)
    expect(JSON.parse(doctor.stdout).checks.map((c: { id: string }) => c.id)).toContain('engine')
    const pid = berth.daemonPid()!
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    expect(cmdline.slice(1, 4)).toEqual([join(installed.launcher, '..', '..', 'app.asar', 'out', 'cli', 'berth.cjs'), 'daemon', '--foreground'])
    expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toEqual(expect.arrayContaining([`BERTH_LAUNCHER=${installed.launcher}`, 'ELECTRON_RUN_AS_NODE=1']))
  })

  it('writes sleep hooks that run this command, from the CLI and from the app (the core, asked with no command)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-hooks-'))
    try {
      const cli = await run(['power', 'install-hook', '--platform', 'linux', '--dir', dir, '--json'])
      expect(cli.code, cli.stderr).toBe(0)
      const hook = readFileSync(join(dir, 'berth'), 'utf8')
      expect(hook).toContain(`env BERTH_HOME='${berth.home}' '${installed.launcher}' power "$verb"`)
      rmSync(join(dir, 'berth'))
      // as the app's Settings screen asks: no command given, the core uses the launcher it was started by
      const fromApp = await berth.call('power.installHook', { platform: 'linux', dir })
      expect(fromApp.files[0]!.content).toContain(`'${installed.launcher}' power "$verb"`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('says so in one line when the app is not where the command expects it', async () => {
    rmSync(installed.app)
    const r = await run(['--version'])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(`berth: the Berth app is not where this command expects it (${installed.app})\n`)
  })
})
