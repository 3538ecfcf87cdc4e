// Puts a session's secrets into /run/berth/secrets/ after every start of its container. The folder is
// a tmpfs-backed volume that each start leaves empty, so the values never sit in a committed layer,
// a workspace copy or a transfer. They travel as a tar in the Docker API request body, never in a
// command line or the events log. The folder and its files belong to the user the session's
// processes run as, readable by it alone. A process that reads a secret holds it in its memory,
// which a memory pause dumps with the rest: see the README's security model.
import { posix } from 'node:path'
import { pack } from 'tar-stream'
import type { Engine } from '../engines/engine'
import { SECRETS_DIR } from '../sessions/container-spec'
import type { SessionRow } from '../store/sessions-repo'
import { containerUser, type FileOwner } from './container-user'
import type { SecretStore } from './secret-store'

/** The folder's own entry, then one file per secret, all the owner's: dr-x------ and -r--------. */
export async function secretsArchive(files: Array<{ name: string; value: Buffer }>, owner: FileOwner = { uid: 0, gid: 0 }): Promise<Buffer> {
  const p = pack()
  const chunks: Buffer[] = []
  p.on('data', (d: unknown) => void chunks.push(d as Buffer))
  const done = new Promise<void>((resolve, reject) => {
    p.on('end', () => resolve())
    p.on('error', reject)
  })
  const dir = posix.basename(SECRETS_DIR)
  const mtime = new Date()
  p.entry({ name: `${dir}/`, type: 'directory', mode: 0o500, uid: owner.uid, gid: owner.gid, mtime })
  for (const f of files) p.entry({ name: `${dir}/${f.name}`, mode: 0o400, uid: owner.uid, gid: owner.gid, mtime }, f.value)
  p.finalize()
  await done
  return Buffer.concat(chunks)
}

export class SecretInstaller {
  constructor(
    private readonly store: SecretStore,
    /** something the session should know about its secrets (gone from the store, root only...): said in the events log, never fatal */
    private readonly note: (row: SessionRow, kind: string, detail: Record<string, unknown>) => void,
  ) {}

  async install(row: SessionRow, engine: Engine, containerId: string): Promise<void> {
    if (row.secrets.length === 0) return
    const files: Array<{ name: string; value: Buffer }> = []
    const gone: string[] = []
    for (const name of row.secrets) {
      let value: Buffer | undefined
      try {
        value = this.store.get(name)
      } catch (e) {
        // an unreadable store starts the session without its secrets, and says why
        this.note(row, 'secrets-unreadable', { message: `secrets not installed: ${(e as Error).message}` })
        return
      }
      if (value) files.push({ name, value })
      else gone.push(name)
    }
    if (gone.length) this.note(row, 'secrets-missing', { names: gone, message: `not installed: ${gone.join(', ')} (no longer stored)` })
    if (files.length === 0) return
    const container = engine.docker.getContainer(containerId)
    const info = await container.inspect()
    const user = await containerUser(container, info.Config?.User)
    if (user.fallback) this.note(row, 'secrets-root-only', { message: user.fallback })
    await container.putArchive(await secretsArchive(files, user.owner), { path: posix.dirname(SECRETS_DIR) })
  }
}
