// Every name Berth gives a Docker object (containers, volumes, images, labels), in one low file so
// that no two domains invent a name for the same thing. Snapshot objects carry the Berth home's id
// so two homes sharing an engine never collide (tests do exactly that).
import { SESSION_IMAGE_REPO } from '../../../shared/models'

/** A session's container and its workspace volume. */
export const containerName = (sessionId: string) => `berth-${sessionId}`
export const volumeName = (sessionId: string) => `berth-${sessionId}-ws`

/** Labels tie a session's container to the session and to this Berth home, so reconciliation never touches another home's containers. */
export const LABEL_SESSION = 'berth.session'
export const LABEL_HOME = 'berth.home'
export const LABEL_ROUTE = 'berth.route'

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

/**
 * The session whose own container this is, or undefined. A snapshot's containers (memory holders,
 * test restores) are made from the session's committed image and so inherit its berth.session and
 * berth.home labels: the label alone does not make a container the session's.
 */
export const sessionOfContainer = (labels: Record<string, string> | undefined): string | undefined =>
  labels?.[LABEL_SNAPSHOT] ? undefined : labels?.[LABEL_SESSION] || undefined

/** The image a pause commits of the session's disk: berth/<session id>:pause-<N>. */
export const pauseImage = (sessionId: string, pauseSnapshot: string) => `berth/${sessionId}:${pauseSnapshot}`
/** What every pause image of a session matches (a docker `reference` filter). */
export const pauseImagesOf = (sessionId: string) => pauseImage(sessionId, 'pause-*')

/** The image Berth builds from a project's devcontainer.json on a server (one per home and project folder). */
export const devcontainerImage = (homeId: string, projectKey: string) => `berth/devcontainer:${homeId}.${projectKey}`
