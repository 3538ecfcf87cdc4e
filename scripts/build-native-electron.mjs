// Builds better-sqlite3 for Electron's ABI into native/electron/<platform>-<arch>/, leaving Node's
// build in node_modules (the daemon's, the CLI's and the tests') alone: the package is copied to a
// temporary folder and built there.
//
// It needs what only a machine with internet (or a copy of it) has, tried in this order:
//   1. BERTH_ELECTRON_HEADERS=/path/node-v<electron version>-headers.tar.gz (Electron's headers,
//      as https://electronjs.org/headers/v<version>/ serves them): built with node-gyp, offline;
//   2. better-sqlite3's prebuilt binary for Electron, through prebuild-install (GitHub releases);
//   3. node-gyp downloading Electron's headers itself (--dist-url https://electronjs.org/headers).
// The result is checked: its node_register_module_v<N> symbol must be Electron's ABI.
//
//   node scripts/build-native-electron.mjs [--if-missing] [--arch x64|arm64]
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, copyFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const require = createRequire(join(root, 'package.json'))
const args = process.argv.slice(2)
const arch = args.includes('--arch') ? args[args.indexOf('--arch') + 1] : process.arch
const electron = require('electron/package.json').version
const abi = Number(readFileSync(join(dirname(require.resolve('electron/package.json')), 'abi_version'), 'utf8').trim())
const outDir = join(root, 'native', 'electron', `${process.platform}-${arch}`)
const out = join(outDir, 'better_sqlite3.node')

const moduleVersion = (file) => {
  const m = /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'))
  return m ? Number(m[1]) : null
}
const say = (line) => process.stderr.write(`native:electron: ${line}\n`)

if (args.includes('--if-missing') && existsSync(out) && moduleVersion(out) === abi) {
  say(`${out} is there (Electron ${electron}, module version ${abi})`)
  process.exit(0)
}

const work = mkdtempSync(join(tmpdir(), 'berth-native-'))
const pkg = join(work, 'better-sqlite3')
cpSync(dirname(require.resolve('better-sqlite3/package.json')), pkg, { recursive: true, filter: (src) => !src.includes(`${'/'}build${'/'}`) && !src.endsWith('/build') })
// npm passes its nodedir (Node's headers) to scripts: that would build for Node's ABI again
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_(nodedir|target|runtime|disturl|arch)$/i.test(k)))
env.HOME = work // node-gyp's header cache, private to this build

// each attempt with its own header folder: headers one attempt installed never serve another
const gyp = (extra, devdir) =>
  execFileSync(process.execPath, [require.resolve('node-gyp/bin/node-gyp.js'), 'rebuild', '--release', `--target=${electron}`, `--arch=${arch}`, '--runtime=electron', `--devdir=${join(work, devdir)}`, ...extra], {
    cwd: pkg,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 15 * 60_000,
  })

const attempts = []
if (process.env.BERTH_ELECTRON_HEADERS) attempts.push(['node-gyp with the headers in BERTH_ELECTRON_HEADERS', () => gyp([`--tarball=${resolve(process.env.BERTH_ELECTRON_HEADERS)}`, '--dist-url=file:///nonexistent'], 'gyp-tarball')])
attempts.push([
  "better-sqlite3's prebuilt binary for Electron (prebuild-install)",
  () =>
    execFileSync(process.execPath, [require.resolve('prebuild-install/bin.js'), '--runtime', 'electron', '--target', electron, '--arch', arch, '--platform', process.platform], {
      cwd: pkg,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 120_000,
    }),
])
attempts.push(["node-gyp with Electron's headers from electronjs.org", () => gyp(['--dist-url=https://electronjs.org/headers'], 'gyp-download')])

let built = false
for (const [what, run] of attempts) {
  say(`trying ${what}`)
  try {
    run()
  } catch (e) {
    const lines = String(e.stderr ?? e.message).trim().split('\n')
    const download = /gyp http GET (\S+)/.exec(lines.join('\n'))
    const cause = (download && /(install|configure) error/.test(lines.join('\n')) ? `could not download ${download[1]}` : undefined) ?? lines.find((l) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|getaddrinfo|404|No such file/i.test(l)) ?? lines.filter((l) => /err/i.test(l)).at(-3) ?? lines.at(-1)
    say(`  failed: ${cause?.replace(/^gyp ERR! /, '')}`)
    continue
  }
  const file = join(pkg, 'build', 'Release', 'better_sqlite3.node')
  const v = existsSync(file) ? moduleVersion(file) : null
  if (v !== abi) {
    say(`  built module version ${v}, not Electron ${electron}'s ${abi}`)
    continue
  }
  mkdirSync(outDir, { recursive: true })
  copyFileSync(file, out)
  say(`wrote ${out} (Electron ${electron}, module version ${abi})`)
  built = true
  break
}
rmSync(work, { recursive: true, force: true })
if (!built) {
  say(`could not build better-sqlite3 for Electron ${electron} (module version ${abi}): this needs Electron's headers or better-sqlite3's prebuilt binary, so internet access, or BERTH_ELECTRON_HEADERS naming node-v${electron}-headers.tar.gz`)
  process.exit(1)
}
