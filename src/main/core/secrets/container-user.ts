// Which user a session's processes run as, so that its secrets can be given to that user only. The
// image's USER (the container's Config.User) is a name or a number, with an optional group, as runc
// reads it; names are looked up in the container's own /etc/passwd and /etc/group, fetched through
// the Docker API as an archive (nothing runs in the session). Those files are the session's to
// write, so they are parsed as untrusted text: bounded in size and time, regular files only, ids in
// range; only numbers leave this file, and only into a tar header.
import { posix } from 'node:path'
import type Dockerode from 'dockerode'
import { extract } from 'tar-stream'
import { within } from '../deadline'

export interface FileOwner {
  uid: number
  gid: number
}

export interface ResolvedUser {
  owner: FileOwner
  /** set when the user could not be told: the secrets then belong to root only, and this says why */
  fallback?: string
}

type Ref = { id: number } | { name: string }

export interface UserSpec {
  user: Ref
  group?: Ref | undefined
}

/** The largest id a tar header carries (7 octal digits). */
export const MAX_ID = 0o7777777
const NAME = /^[A-Za-z_][A-Za-z0-9._-]{0,31}\$?$/
const MAX_FILE_BYTES = 1 << 20
const READ_MS = 5_000
const RESOLVE_MS = 10_000
const ROOT: FileOwner = { uid: 0, gid: 0 }

function ref(part: string): Ref | undefined {
  if (/^\d{1,10}$/.test(part)) {
    const id = Number(part)
    return id <= MAX_ID ? { id } : undefined
  }
  return NAME.test(part) ? { name: part } : undefined
}

/** "app", "1000", "app:staff", "1000:1000"; undefined for anything else. */
export function parseUserSpec(spec: string): UserSpec | undefined {
  if (spec.length > 80) return undefined
  const parts = spec.split(':')
  if (parts.length > 2) return undefined
  const user = ref(parts[0]!)
  if (!user) return undefined
  if (parts.length === 1) return { user }
  const group = ref(parts[1]!)
  return group ? { user, group } : undefined
}

interface Entry {
  name: string
  id: number
  /** passwd: the primary group */
  gid?: number
}

/** name:x:uid:gid:... lines; malformed lines and ids out of range are skipped. */
export function parseIdFile(text: string, kind: 'passwd' | 'group'): Entry[] {
  const out: Entry[] = []
  for (const line of text.split('\n')) {
    const f = line.split(':')
    if (f.length < (kind === 'passwd' ? 4 : 3) || !NAME.test(f[0]!)) continue
    if (!/^\d{1,10}$/.test(f[2]!) || Number(f[2]) > MAX_ID) continue
    const entry: Entry = { name: f[0]!, id: Number(f[2]) }
    if (kind === 'passwd') {
      if (!/^\d{1,10}$/.test(f[3]!) || Number(f[3]) > MAX_ID) continue
      entry.gid = Number(f[3])
    }
    out.push(entry)
  }
  return out
}

/**
 * runc's reading of a USER: a numeric user need not exist (its group is then 0 unless given), a
 * named one must; a named group must exist in /etc/group. Undefined when it cannot be resolved.
 */
export function resolveSpec(spec: UserSpec, passwd: Entry[] | undefined, group: Entry[] | undefined): FileOwner | undefined {
  let owner: FileOwner
  if ('id' in spec.user) {
    const id = spec.user.id
    const found = passwd?.find((e) => e.id === id)
    owner = { uid: id, gid: found?.gid ?? 0 }
  } else {
    const name = spec.user.name
    const found = passwd?.find((e) => e.name === name)
    if (!found) return undefined
    owner = { uid: found.id, gid: found.gid ?? 0 }
  }
  if (!spec.group) return owner
  if ('id' in spec.group) return { ...owner, gid: spec.group.id }
  const name = spec.group.name
  const g = group?.find((e) => e.name === name)
  return g ? { ...owner, gid: g.id } : undefined
}

type Read = { text: string } | { link: string } | undefined

/**
 * The text of a regular file in the container, at most 1 MiB, following up to 4 symbolic links
 * (Docker resolves every path inside the container's own root); undefined for anything else.
 */
export async function readContainerFile(container: Dockerode.Container, path: string, ms = READ_MS): Promise<string | undefined> {
  let at = path
  for (let hop = 0; hop <= 4; hop++) {
    const r = await readEntry(container, at, ms)
    if (!r) return undefined
    if ('text' in r) return r.text
    if (r.link.length > 4096 || r.link.includes('\0')) return undefined
    at = posix.resolve(posix.dirname(at), r.link)
  }
  return undefined
}

async function readEntry(container: Dockerode.Container, path: string, ms: number): Promise<Read> {
  let stream: NodeJS.ReadableStream | undefined
  const read = (async () => {
    stream = (await container.getArchive({ path })) as NodeJS.ReadableStream
    return await new Promise<Read>((resolve, reject) => {
      const x = extract()
      let done = false
      const finish = (v: Read) => {
        if (done) return
        done = true
        resolve(v)
        ;(stream as unknown as { destroy?: () => void }).destroy?.()
        x.destroy()
      }
      x.on('entry', (header, body, next) => {
        if (header.type === 'symlink' && header.linkname) {
          body.resume()
          return finish({ link: header.linkname })
        }
        if (header.type !== 'file' || (header.size ?? 0) > MAX_FILE_BYTES) {
          body.resume()
          return finish(undefined)
        }
        const chunks: Buffer[] = []
        let bytes = 0
        body.on('data', (d: unknown) => {
          const c = d as Buffer
          bytes += c.length
          if (bytes > MAX_FILE_BYTES) finish(undefined)
          else chunks.push(c)
        })
        body.on('end', () => {
          finish({ text: Buffer.concat(chunks).toString('utf8') })
          next()
        })
      })
      x.on('finish', () => finish(undefined))
      x.on('error', (e: Error) => (done ? undefined : reject(e)))
      stream!.on('error', (e: Error) => (done ? undefined : reject(e)))
      stream!.pipe(x)
    })
  })()
  const text = await within(read, ms, () => undefined).catch(() => undefined)
  if (text === undefined) (stream as unknown as { destroy?: () => void } | undefined)?.destroy?.()
  return text
}

/** Who the container's processes run as; root (with the reason) when that cannot be told, within 10 s. */
export async function containerUser(container: Dockerode.Container, configUser: string | undefined): Promise<ResolvedUser> {
  const late = (): ResolvedUser => ({ owner: ROOT, fallback: `reading the session's /etc/passwd took over ${RESOLVE_MS / 1000} s, so only root in the session can read its secrets` })
  return await within(resolveUser(container, configUser), RESOLVE_MS, late)
}

async function resolveUser(container: Dockerode.Container, configUser: string | undefined): Promise<ResolvedUser> {
  const raw = (configUser ?? '').trim()
  if (raw === '' || raw === 'root' || raw === '0' || raw === '0:0' || raw === 'root:root') return { owner: ROOT }
  const spec = parseUserSpec(raw)
  const shown = JSON.stringify(raw.slice(0, 80))
  if (!spec) return { owner: ROOT, fallback: `the image's user ${shown} is not a user Berth can read, so only root in the session can read its secrets` }
  // even a numeric user takes its group from /etc/passwd
  const passwd = await readContainerFile(container, '/etc/passwd')
  const group = spec.group && 'name' in spec.group ? await readContainerFile(container, '/etc/group') : undefined
  const owner = resolveSpec(spec, passwd === undefined ? undefined : parseIdFile(passwd, 'passwd'), group === undefined ? undefined : parseIdFile(group, 'group'))
  if (!owner) return { owner: ROOT, fallback: `the image's user ${shown} is not in the session's /etc/passwd or /etc/group, so only root in the session can read its secrets` }
  return { owner }
}
