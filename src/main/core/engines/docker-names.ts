// How snapshots and what they hold are named, in the store and on the engines. Engine objects carry
// the Berth home's id so two homes sharing an engine never collide (tests do exactly that).
import { SESSION_IMAGE_REPO } from '../../../shared/models'

export const snapshotId = (name: string, version: number) => `${name}:v${version}`

export function parseSnapshotId(id: string): { name: string; version: number | null } {
  const m = /^(.*):v(\d+)$/.exec(id)
  return m ? { name: m[1]!, version: Number(m[2]) } : { name: id, version: null }
}

/** Automatic snapshots are named after their session: <session name>.<reason> (e.g. api.seal:v4). */
export const autoName = (sessionName: string, reason: string) => `${sessionName}.${reason}`.slice(0, 64)

export const SNAPSHOT_REPO = 'berth/snapshot'
export const SESSION_REPO = SESSION_IMAGE_REPO

/** The committed image of a snapshot: berth/snapshot:<home>.<name>.v<N> (a valid Docker tag). */
export const snapshotImage = (homeId: string, name: string, version: number) => `${SNAPSHOT_REPO}:${homeId}.${name}.v${version}`

/** A copy of the workspace volume, owned by the snapshot. */
export const snapshotVolume = (homeId: string, name: string, version: number) => `berth-snap-${homeId}.${name}.v${version}`

/** A never-started container that holds a snapshot's memory checkpoint in its checkpoints folder. */
export const snapshotHolder = (homeId: string, name: string, version: number) => `berth-hold-${homeId}.${name}.v${version}`

/**
 * The image a session's current container was made from, when Berth made it (restart, a move, a
 * restore): one tag per session, moved on every recreate, so deleting a snapshot never has to
 * force an image away from a container that uses it.
 */
export const sessionImage = (homeId: string, sessionId: string) => `${SESSION_REPO}:${homeId}.${sessionId}`

/**
 * Labels on what snapshots own. Their containers and volumes carry berth.holder=<home> rather than
 * berth.home: they are not sessions, and counting a home's session containers must not see them.
 */
export const LABEL_SNAPSHOT = 'berth.snapshot'
export const LABEL_HOLDER = 'berth.holder'

/** The image a pause commits of the session's disk: berth/<session id>:pause-<N>. */
export const pauseImage = (sessionId: string, pauseSnapshot: string) => `berth/${sessionId}:${pauseSnapshot}`
/** What every pause image of a session matches (a docker `reference` filter). */
export const pauseImagesOf = (sessionId: string) => pauseImage(sessionId, 'pause-*')
