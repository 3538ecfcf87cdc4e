// Files Berth cannot do without (secrets, known_hosts, the gateway's host key, the ssh config) are
// replaced whole: written to a temporary file, flushed to the disk, renamed over the old one, and
// the folder flushed too. After a crash or a power cut the path holds the old file or the new one,
// never a truncated one (a rename alone may reach the disk before the data it names). Modes are
// set explicitly, so a permissive umask cannot widen them.
import { chmodSync, closeSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import { dirname } from 'node:path'

let counter = 0

/** Writes a temporary file next to `path`, flushed to the disk; returns its name. */
function writeTemporary(path: string, data: string | Buffer, mode: number): string {
  const tmp = `${path}.tmp-${process.pid}-${++counter}`
  const fd = openSync(tmp, 'wx', mode)
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    for (let off = 0; off < bytes.length; ) off += writeSync(fd, bytes, off, bytes.length - off)
    fchmodSync(fd, mode)
    fsyncSync(fd)
  } catch (e) {
    closeSync(fd)
    rmSync(tmp, { force: true })
    throw e
  }
  closeSync(fd)
  return tmp
}

/** Flushes a folder's entries (a rename or a new name in it) to the disk. */
export function syncFolder(dir: string): void {
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch {
    return // a platform that cannot open folders (Windows) flushes its metadata itself
  }
  try {
    fsyncSync(fd)
  } catch {
    // some file systems refuse fsync on a folder: they order metadata themselves
  } finally {
    closeSync(fd)
  }
}

/** Replaces `path` with `data` so that a crash at any point leaves the old file or the new one. */
export function writeFileDurably(path: string, data: string | Buffer, mode = 0o600): void {
  const tmp = writeTemporary(path, data, mode)
  try {
    renameSync(tmp, path)
  } catch (e) {
    rmSync(tmp, { force: true })
    throw e
  }
  syncFolder(dirname(path))
}

/**
 * Creates `path` with `data` only if nothing is there yet (two processes racing to make a key
 * both end up with the one that won). Returns whether this call created it.
 */
export function createFileDurably(path: string, data: string | Buffer, mode = 0o600): boolean {
  const tmp = writeTemporary(path, data, mode)
  try {
    linkSync(tmp, path)
    return true
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw e
  } finally {
    rmSync(tmp, { force: true })
    syncFolder(dirname(path))
  }
}

/** A folder only its owner may enter: made 0700, and narrowed to 0700 if it exists wider. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700)
  return dir
}

/** Narrows an existing file to 0600 (files a library created with the umask's mode). */
export function ensurePrivateFile(path: string): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600)
  } catch {
    // not there (yet)
  }
}
