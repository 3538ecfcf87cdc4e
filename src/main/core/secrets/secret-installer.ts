// Puts a session's secrets into /run/berth/secrets/ after every start of its container. The folder is
// a tmpfs-backed volume that each start leaves empty, so the values exist only in the running
// container's memory: never in a committed layer, a checkpoint or a transfer. They travel as a tar
// in the Docker API request body, never in a command line or the events log.
import { pack } from 'tar-stream'
import type { Engine } from '../engines/engine'
import { SECRETS_DIR } from '../sessions/container-spec'
import type { SessionRow } from '../store/sessions-repo'
import type { SecretStore } from './secret-store'

export interface Owner {
  uid: number
  gid: number
  mode: number
}

/**
 * Who may read the files: the container's user. Root by default; a numeric USER owns them; a named
 * USER cannot be resolved without reading the image's passwd, so the files are readable by all
 * users of the session (the session is one person's).
 */
export function ownerFor(user: string | undefined): Owner {
  if (!user || user === 'root' || user === '0') return { uid: 0, gid: 0, mode: 0o400 }
  const m = /^(\d+)(?::(\d+))?$/.exec(user)
  if (m) return { uid: Number(m[1]), gid: Number(m[2] ?? m[1]), mode: 0o400 }
  return { uid: 0, gid: 0, mode: 0o444 }
}

export async function secretsArchive(files: Array<{ name: string; value: Buffer }>, owner: Owner = ownerFor(undefined)): Promise<Buffer> {
  const p = pack()
  const chunks: Buffer[] = []
  p.on('data', (d: unknown) => void chunks.push(d as Buffer))
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', () => resolve())
    p.on('error', reject)
  })
  for (const f of files) p.entry({ name: f.name, mode: owner.mode, uid: owner.uid, gid: owner.gid, mtime: new Date() }, f.value)
  p.finalize()
  await done
  return Buffer.concat(chunks)
}

export class SecretInstaller {
  constructor(
    private readonly store: SecretStore,
    /** a secret the session names is no longer stored: said in the events log, never fatal */
    private readonly missing: (row: SessionRow, names: string[]) => void,
  ) {}

  async install(row: SessionRow, engine: Engine, containerId: string): Promise<void> {
    if (row.secrets.length === 0) return
    const files: Array<{ name: string; value: Buffer }> = []
    const gone: string[] = []
    for (const name of row.secrets) {
      const value = this.store.get(name)
      if (value) files.push({ name, value })
      else gone.push(name)
    }
    if (gone.length) this.missing(row, gone)
    if (files.length === 0) return
    const container = engine.docker.getContainer(containerId)
    const info = await container.inspect()
    await container.putArchive(await secretsArchive(files, ownerFor(info.Config?.User)), { path: SECRETS_DIR })
  }
}
