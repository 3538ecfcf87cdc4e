// better-sqlite3 is a native module: Node's build (what `npm ci` makes, for the daemon, the CLI
// and the tests) cannot load in Electron, whose ABI differs, and Electron's cannot load in Node.
// So there are two builds: Node's in node_modules, Electron's beside the app
// (native/electron/<platform>-<arch>/ in a checkout, resources/native/ in the packaged app).
// Which one a process loads is chosen here, by the runtime it runs in.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const SQLITE_ADDON = 'better_sqlite3.node'
/** where electron-builder puts Electron's build (extraResources in electron-builder.yml) */
export const PACKAGED_NATIVE_DIR = 'native'
/** where scripts/build-native-electron.mjs writes it in a checkout */
export const checkoutNativeDir = (root: string, platform = process.platform, arch = process.arch) => join(root, 'native', 'electron', `${platform}-${arch}`)

/** The NODE_MODULE_VERSION a native module was built for, read from its file (its node_register_module_vN symbol). */
export function nodeModuleVersion(file: string): number | null {
  const bytes = readFileSync(file)
  const m = /node_register_module_v(\d+)/.exec(bytes.toString('latin1'))
  return m ? Number(m[1]) : null
}

/** The file's executable format, from its first bytes. */
export function binaryFormat(file: string): 'elf' | 'mach-o' | 'pe' | null {
  const head = readFileSync(file).subarray(0, 4)
  if (head.equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))) return 'elf'
  const magic = head.readUInt32LE(0)
  if ([0xfeedface, 0xfeedfacf, 0xcafebabe, 0xbebafeca].includes(magic) || [0xfeedface, 0xfeedfacf].includes(head.readUInt32BE(0))) return 'mach-o'
  if (head[0] === 0x4d && head[1] === 0x5a) return 'pe'
  return null
}

/**
 * The addon this process must load, or undefined for better-sqlite3's own (Node's build). In
 * Electron (the app, and its CLI run with ELECTRON_RUN_AS_NODE) it is Electron's build: packaged,
 * in resources/native (two folders up from out/main or out/cli inside app.asar); in a checkout
 * (npm run dev), native/electron/<platform>-<arch>. BERTH_SQLITE_ADDON names one outright.
 */
export function sqliteAddon(bundleDir: string, env: NodeJS.ProcessEnv = process.env, versions: NodeJS.ProcessVersions = process.versions): string | undefined {
  if (env.BERTH_SQLITE_ADDON) return env.BERTH_SQLITE_ADDON
  if (!versions.electron) return undefined
  const appRoot = join(bundleDir, '..', '..')
  const candidates = [join(appRoot, '..', PACKAGED_NATIVE_DIR, SQLITE_ADDON), join(checkoutNativeDir(appRoot), SQLITE_ADDON)]
  const found = candidates.find((f) => existsSync(f))
  if (!found) throw new Error(`Electron's build of better-sqlite3 is missing (looked at ${candidates.join(', ')}): run npm run native:electron`)
  return found
}
