// "Install command line tool": a `berth` on the PATH that links to the app's launcher
// (resources/bin/berth, which runs the CLI inside the app's Electron). /usr/local/bin when it can
// be written (macOS asks for an administrator, as other apps' shell commands do), else
// ~/.local/bin. An AppImage runs from a new place each start, so it cannot carry the command.
import { execFile } from 'node:child_process'
import { lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs'
import { homedir } from 'node:os'
import { delimiter, join } from 'node:path'

export interface CliInstall {
  ok: boolean
  /** where `berth` is now, when it is */
  path: string | null
  message: string
}

/** Replaces `link` with a symlink to `target`, unless something other than a link is there. */
export function linkCommand(target: string, link: string): void {
  try {
    const st = lstatSync(link)
    if (!st.isSymbolicLink()) throw Object.assign(new Error(`${link} exists and is not a link Berth made`), { code: 'EEXIST' })
    if (readlinkSync(link) === target) return
    rmSync(link)
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  mkdirSync(join(link, '..'), { recursive: true })
  symlinkSync(target, link)
}

const onPath = (dir: string, path = process.env.PATH ?? '') => path.split(delimiter).includes(dir)

export async function installCommandLine(
  launcher: string,
  opts: { platform?: NodeJS.Platform; appImage?: string | undefined; dirs?: string[]; admin?: (script: string) => Promise<void>; link?: typeof linkCommand } = {},
): Promise<CliInstall> {
  const platform = opts.platform ?? process.platform
  if (opts.appImage) return { ok: false, path: null, message: 'An AppImage runs from a new place each time, so it cannot carry the berth command: install the .deb package, which puts berth in /usr/bin.' }
  const dirs = opts.dirs ?? ['/usr/local/bin', join(homedir(), '.local', 'bin')]
  let lastError = ''
  for (const [i, dir] of dirs.entries()) {
    const link = join(dir, 'berth')
    try {
      ;(opts.link ?? linkCommand)(launcher, link)
      return { ok: true, path: link, message: `berth is now ${link}${onPath(dir) ? '' : ` (add ${dir} to your PATH)`}: try berth doctor in a terminal.` }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      lastError = (e as Error).message
      if (code === 'EEXIST') return { ok: false, path: null, message: `${lastError}: remove it first.` }
      // the system-wide folder, first in the list: macOS asks for an administrator
      if ((code === 'EACCES' || code === 'EPERM') && platform === 'darwin' && i === 0) {
        const admin = opts.admin ?? runAsAdmin
        try {
          await admin(`mkdir -p '${dir}' && ln -sfn '${launcher.replace(/'/g, `'\\''`)}' '${link}'`)
          return { ok: true, path: link, message: `berth is now ${link}: try berth doctor in a terminal.` }
        } catch (err) {
          lastError = (err as Error).message
        }
      }
    }
  }
  return { ok: false, path: null, message: `could not install the berth command: ${lastError}` }
}

/** macOS: a shell command with an administrator's authorisation, asked for by the system. */
function runAsAdmin(script: string): Promise<void> {
  const apple = `do shell script "${script.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}" with administrator privileges`
  return new Promise((resolve, reject) => execFile('osascript', ['-e', apple], { timeout: 120_000 }, (err) => (err ? reject(err) : resolve())))
}
