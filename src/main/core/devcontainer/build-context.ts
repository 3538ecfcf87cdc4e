// The build context of a devcontainer.json build, read on the laptop and sent to the session's
// server as a tar (Docker's own build-context form). The project folder is not trusted: the
// Dockerfile and the context must lie inside it once every symlink is resolved, and the walk never
// follows a link (a link travels as a link, which Docker's build resolves inside the context), so
// nothing outside the folder leaves the laptop. The context's .dockerignore holds, as Docker's own
// client applies it (node_modules, .env and the like never leave the laptop when it says so).
import ignore from '@balena/dockerignore'
import { createReadStream } from 'node:fs'
import { lstat, readdir, readFile, readlink, realpath, stat } from 'node:fs/promises'
import { isAbsolute, join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { pack, type Pack } from 'tar-stream'
import { BerthError, reasonOf } from '../../../shared/errors'

/** Where a Dockerfile that lies outside its context (but inside the folder) goes in the tar. */
export const OUTSIDE_DOCKERFILE = '.berth-devcontainer.Dockerfile'

/** More entries than this and the context is refused: a build context is a project, not a disk. */
const MAX_ENTRIES = 200_000

export interface BuildContext {
  /** the context folder, resolved (inside the project folder) */
  dir: string
  /** the Dockerfile's path inside the tar */
  dockerfile: string
  /** the Dockerfile itself when it lies outside the context */
  outside?: string
}

/** `path` once its links are resolved, when it lies inside `root` (itself resolved); else null. */
async function inside(root: string, path: string): Promise<string | null> {
  const real = await realpath(path).catch(() => null)
  if (!real) return null
  const rel = relative(root, real)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) ? real : null
}

/**
 * Resolves a build's Dockerfile and context, written relative to `configDir` (the folder of
 * devcontainer.json), and refuses either when it escapes `projectDir`.
 */
export async function resolveBuildContext(projectDir: string, configDir: string, build: { dockerfile: string; context: string }): Promise<BuildContext> {
  const root = await realpath(projectDir).catch((e: unknown) => {
    throw new BerthError('not_found', `cannot read the folder ${projectDir}: ${reasonOf(e)}`)
  })
  const dockerfile = await inside(root, resolve(configDir, build.dockerfile))
  if (!dockerfile) throw new BerthError('refused', `the Dockerfile ${JSON.stringify(build.dockerfile)} is not a file inside ${projectDir}; Berth builds only from the project's own folder`)
  if (!(await stat(dockerfile)).isFile()) throw new BerthError('refused', `the Dockerfile ${JSON.stringify(build.dockerfile)} is not a file`)
  const dir = await inside(root, resolve(configDir, build.context))
  if (!dir) throw new BerthError('refused', `the build context ${JSON.stringify(build.context)} is not a folder inside ${projectDir}; Berth builds only from the project's own folder`)
  if (!(await stat(dir)).isDirectory()) throw new BerthError('refused', `the build context ${JSON.stringify(build.context)} is not a folder`)
  const rel = relative(dir, dockerfile)
  if (!rel.startsWith('..') && !isAbsolute(rel)) return { dir, dockerfile: rel.split(sep).join('/') }
  return { dir, dockerfile: OUTSIDE_DOCKERFILE, outside: dockerfile }
}

function entry(tar: Pack, header: Parameters<Pack['entry']>[0], body?: string): Promise<void> {
  return new Promise((res, rej) => {
    tar.entry(header, body ?? '', (e) => (e ? rej(e) : res()))
  })
}

async function addFile(tar: Pack, name: string, path: string, size: number, mode: number, mtime: Date): Promise<void> {
  const sink = tar.entry({ name, size, mode, mtime, type: 'file' })
  await pipeline(createReadStream(path), sink)
}

/**
 * What the context's .dockerignore leaves out, as Docker's client reads it: the Dockerfile and the
 * .dockerignore itself always travel; a folder that is left out is not even read unless an
 * exception (`!pattern`) may bring back something inside it.
 */
async function ignoredBy(ctx: BuildContext): Promise<{ skips: (name: string) => boolean; exceptions: boolean }> {
  const text = await readFile(join(ctx.dir, '.dockerignore'), 'utf8').catch(() => '')
  const patterns = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  const ig = ignore().add(patterns)
  const always = new Set([ctx.dockerfile, '.dockerignore'])
  return { skips: (name) => !always.has(name) && ig.ignores(name), exceptions: patterns.some((p) => p.startsWith('!')) }
}

/** The context as a tar stream; a read failure half way ends the stream with that error. */
export function contextTar(ctx: BuildContext): NodeJS.ReadableStream {
  const tar = pack()
  let count = 0
  const walk = async (dir: string, prefix: string, ignored: Awaited<ReturnType<typeof ignoredBy>>): Promise<void> => {
    const names = (await readdir(dir)).sort()
    for (const n of names) {
      if (++count > MAX_ENTRIES) throw new BerthError('refused', `the build context holds over ${MAX_ENTRIES} entries`)
      const path = join(dir, n)
      const name = prefix ? `${prefix}/${n}` : n
      const st = await lstat(path)
      const mode = st.mode & 0o7777
      const skipped = ignored.skips(name)
      if (skipped && !(st.isDirectory() && ignored.exceptions)) continue
      if (st.isSymbolicLink()) {
        await entry(tar, { name, type: 'symlink', linkname: await readlink(path), mode, mtime: st.mtime })
      } else if (st.isDirectory()) {
        if (!skipped) await entry(tar, { name, type: 'directory', mode, mtime: st.mtime })
        await walk(path, name, ignored)
      } else if (st.isFile()) {
        await addFile(tar, name, path, st.size, mode, st.mtime)
      }
      // sockets, fifos and devices have no place in an image build: left out
    }
  }
  void (async () => {
    await walk(ctx.dir, '', await ignoredBy(ctx))
    if (ctx.outside) {
      const st = await stat(ctx.outside)
      await addFile(tar, OUTSIDE_DOCKERFILE, ctx.outside, st.size, 0o644, st.mtime)
    }
    tar.finalize()
  })().catch((e: unknown) => tar.destroy(e instanceof Error ? e : new Error(String(e))))
  return tar as unknown as NodeJS.ReadableStream
}
