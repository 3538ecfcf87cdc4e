// How snapshots are named in the store (their Docker objects are named in engines/docker-names.ts).

export const snapshotId = (name: string, version: number) => `${name}:v${version}`

export function parseSnapshotId(id: string): { name: string; version: number | null } {
  const m = /^(.*):v(\d+)$/.exec(id)
  return m ? { name: m[1]!, version: Number(m[2]) } : { name: id, version: null }
}

/** Automatic snapshots are named after their session: <session name>.<reason> (e.g. api.seal:v4). */
export const autoName = (sessionName: string, reason: string) => `${sessionName}.${reason}`.slice(0, 64)
