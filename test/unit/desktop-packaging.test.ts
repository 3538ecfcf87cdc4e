// The desktop app ships with the right native build of its store and with its berth command:
// read from the files themselves (Electron cannot run here) and from electron-builder's config.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { binaryFormat, checkoutNativeDir, nodeModuleVersion, PACKAGED_NATIVE_DIR, SQLITE_ADDON, sqliteAddon } from '../../src/main/core/store/native-module'

const ROOT = resolve(__dirname, '..', '..')
const require = createRequire(join(ROOT, 'package.json'))
const nodeBuild = join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', SQLITE_ADDON)
const electronAbi = Number(readFileSync(join(dirname(require.resolve('electron/package.json')), 'abi_version'), 'utf8').trim())
const electronBuild = join(checkoutNativeDir(ROOT), SQLITE_ADDON)
const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8'))
const tmp = mkdtempSync(join(tmpdir(), 'berth-pack-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const electronVersions = { ...process.versions, electron: '45.5.0' } as NodeJS.ProcessVersions

describe('one better-sqlite3 build per runtime', () => {
  it("node_modules holds Node's build, for this Node's module version, and this process loads it", () => {
    expect(binaryFormat(nodeBuild)).toBe(process.platform === 'darwin' ? 'mach-o' : process.platform === 'win32' ? 'pe' : 'elf')
    expect(nodeModuleVersion(nodeBuild)).toBe(Number(process.versions.modules))
    expect(sqliteAddon(join(ROOT, 'out', 'cli'), {})).toBeUndefined()
  })

  it("Electron's build, when it has been made, carries Electron's module version; when not, Electron is told how to make it", () => {
    if (existsSync(electronBuild)) {
      expect(binaryFormat(electronBuild)).toBe(binaryFormat(nodeBuild))
      expect(nodeModuleVersion(electronBuild)).toBe(electronAbi)
      expect(sqliteAddon(join(ROOT, 'out', 'main'), {}, electronVersions)).toBe(electronBuild)
    } else {
      expect(() => sqliteAddon(join(ROOT, 'out', 'main'), {}, electronVersions)).toThrow(/Electron's build of better-sqlite3 is missing .*: run npm run native:electron/)
    }
    expect(electronAbi).not.toBe(Number(process.versions.modules))
  })

  it("the packaged app (and its CLI run inside Electron) loads resources/native's build, outside app.asar", () => {
    const resources = join(tmp, 'opt', 'Berth', 'resources')
    mkdirSync(join(resources, 'app.asar', 'out', 'cli'), { recursive: true })
    mkdirSync(join(resources, PACKAGED_NATIVE_DIR))
    copyFileSync(nodeBuild, join(resources, PACKAGED_NATIVE_DIR, SQLITE_ADDON))
    expect(sqliteAddon(join(resources, 'app.asar', 'out', 'cli'), {}, electronVersions)).toBe(join(resources, PACKAGED_NATIVE_DIR, SQLITE_ADDON))
    expect(sqliteAddon(join(resources, 'app.asar', 'out', 'main'), {}, electronVersions)).toBe(join(resources, PACKAGED_NATIVE_DIR, SQLITE_ADDON))
  })
})

describe("electron-builder's config", () => {
  it("ships Electron's build as resources/native and never rebuilds Node's in place", () => {
    expect(config.npmRebuild).toBe(false)
    expect(config.extraResources).toContainEqual({ from: 'native/electron/${platform}-${arch}', to: PACKAGED_NATIVE_DIR })
    expect(config.files).toEqual(expect.arrayContaining(['out/cli/**', '!node_modules/better-sqlite3/build/**']))
    expect(config.asarUnpack).not.toContain('node_modules/better-sqlite3/**')
    // npm run dev and npm run dist make Electron's build first
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    expect(pkg.scripts.dev).toMatch(/^node scripts\/build-native-electron\.mjs --if-missing && electron-vite dev$/)
    expect(readFileSync(join(ROOT, 'scripts', 'dist.sh'), 'utf8')).toContain('node scripts/build-native-electron.mjs --if-missing')
  })

  it('carries the berth command: the launcher, the runAsNode fuse it needs, /usr/bin/berth in the deb', () => {
    expect(config.electronFuses.runAsNode).toBe(true)
    expect(config.extraResources).toContainEqual({ from: 'resources/bin', to: 'bin' })
    const launcher = join(ROOT, 'resources', 'bin', 'berth')
    expect(statSync(launcher).mode & 0o111).toBe(0o111)
    execFileSync('shellcheck', [launcher])
    const text = readFileSync(launcher, 'utf8')
    expect(text).toContain('ELECTRON_RUN_AS_NODE=1 exec "$app" "$resources/app.asar/out/cli/berth.cjs" "$@"')
    expect(text).toContain(`app="$(dirname "$resources")/${config.linux.executableName}"`)
    expect(text).toContain(`app="$(dirname "$resources")/MacOS/${config.productName}"`)
    // the deb's scripts are electron-builder's own, with the berth link added at the end
    for (const [ours, theirs] of [
      [config.deb.afterInstall, 'after-install.tpl'],
      [config.deb.afterRemove, 'after-remove.tpl'],
    ] as const) {
      const upstream = readFileSync(join(dirname(require.resolve('app-builder-lib/package.json')), 'templates', 'linux', theirs), 'utf8')
      expect(readFileSync(join(ROOT, ours), 'utf8').startsWith(upstream)).toBe(true)
    }
    expect(readFileSync(join(ROOT, config.deb.afterInstall), 'utf8')).toContain("ln -sf '/opt/${sanitizedProductName}/resources/bin/berth' '/usr/bin/berth'")
  })

  it("depends on the tray's library in the deb, and builds no Windows installer yet", () => {
    expect(config.deb.depends).toContain('libayatana-appindicator3-1 | libappindicator3-1')
    expect(config.win).toBeUndefined()
    expect(config.nsis).toBeUndefined()
  })
})
