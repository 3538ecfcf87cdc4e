// The data Berth shows and stores, as zod schemas so every door validates what crosses it.
// Imports nothing from node, electron or the DOM.
import { z } from 'zod'
import { SESSION_STATES } from './session-values'

// the plain values a page needs without the schemas (session-values.ts: no zod in the page's first script)
export { meterSummaryOf, SESSION_IMAGE_REPO, SESSION_STATES, summaryOf } from './session-values'

export const SessionState = z.enum(SESSION_STATES)
export type SessionState = z.infer<typeof SessionState>

/** memory: CRIU checkpoint; frozen: cgroup freezer + committed disk; disk: committed filesystem only. */
export const PauseMode = z.enum(['memory', 'frozen', 'disk'])
export type PauseMode = z.infer<typeof PauseMode>

/** Who asked for the pause: a user's pause is never undone by a background event. */
export const PausedBy = z.enum(['user', 'policy', 'idle'])
export type PausedBy = z.infer<typeof PausedBy>

export const WorkspaceInfo = z.object({
  dir: z.string(),
  branch: z.string(),
  base: z.string(),
})
export type WorkspaceInfo = z.infer<typeof WorkspaceInfo>

export const Meter = z.object({
  cpuSeconds: z.number(),
  peakMemoryBytes: z.number(),
  memoryBytes: z.number(),
  diskBytes: z.number(),
  cpuPercent: z.number(),
  runningSeconds: z.number(),
  cost: z.number(),
  ratePerHour: z.number(),
  sampledAt: z.string().nullable(),
  /** the session's limits beside its use (null: none) */
  cpuLimit: z.number().nullable().optional(),
  memoryLimitBytes: z.number().nullable().optional(),
})
export type Meter = z.infer<typeof Meter>

export const Activity = z.object({
  idleAfterSeconds: z.number().nullable(),
  lastActiveAt: z.string().nullable(),
  lastSignal: z.string().nullable(),
  status: z.string(),
})
export type Activity = z.infer<typeof Activity>

/** What a session may use of its server (Docker's --cpus, --memory, --pids-limit); absent: no limit. */
export const Limits = z.object({
  cpus: z.number().positive().max(1024).optional(),
  memoryBytes: z.number().int().min(6 * 2 ** 20).optional(),
  pids: z.number().int().min(16).max(4_194_304).optional(),
})
export type Limits = z.infer<typeof Limits>

/** What Berth does when the image's own main process stops by itself. */
export const RestartPolicy = z.enum(['no', 'on-failure', 'always'])
export type RestartPolicy = z.infer<typeof RestartPolicy>

/** The image's own main process (its ENTRYPOINT and CMD), kept running under Berth's supervisor. */
export const MainProcess = z.object({
  command: z.array(z.string()),
  restart: RestartPolicy,
  /** running, or stopped (by itself, not restarted by the policy) */
  state: z.enum(['running', 'stopped']),
  /** how often it stopped by itself in this container */
  exits: z.number().int(),
  /** the last time it stopped by itself: in one sentence, with its exit code and last lines of output */
  lastExit: z.object({ code: z.number().int(), at: z.string(), sentence: z.string(), lines: z.array(z.string()) }).nullable(),
})
export type MainProcess = z.infer<typeof MainProcess>

/** Where a session came from when a project's devcontainer.json made it (`session show` tells it). */
export const SessionSource = z.object({
  kind: z.literal('devcontainer'),
  /** the devcontainer.json it was read from, on the machine that created the session */
  file: z.string(),
  /** the image it named, or the one built from its Dockerfile on the session's server */
  image: z.string(),
  built: z.boolean(),
  /** the user of its terminals, commands and ssh (null: the image's) */
  user: z.string().nullable(),
  /** its forwarded ports (always among its previews) */
  ports: z.array(z.number().int()),
  /** what Berth did not act on, named once at create */
  ignored: z.array(z.string()),
})
export type SessionSource = z.infer<typeof SessionSource>

export const Preview = z.object({ port: z.number().int(), url: z.string() })
export type Preview = z.infer<typeof Preview>

export const Session = z.object({
  id: z.string(),
  name: z.string(),
  server: z.string(),
  state: SessionState,
  mode: PauseMode.nullable(),
  pausedBy: PausedBy.nullable(),
  durable: z.boolean(),
  image: z.string(),
  containerId: z.string().nullable(),
  route: z.string(),
  env: z.record(z.string(), z.string()),
  secrets: z.array(z.string()),
  workspace: WorkspaceInfo.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  savedAt: z.string().nullable(),
  failure: z.string().nullable(),
  autoPause: z.boolean(),
  meter: Meter.optional(),
  activity: Activity.optional(),
  previews: z.array(Preview).optional(),
  sshLine: z.string().optional(),
  progress: z.lazy(() => Progress).nullable().optional(),
  /** where a session created from a snapshot (create --from, fork, rewind, move) came from, and whether memory came along */
  origin: z.lazy(() => SessionOrigin).nullable().optional(),
  limits: Limits.optional(),
  /** the image's own service, where it has one (absent: Berth's keep-alive is the main process) */
  main: MainProcess.nullable().optional(),
  /** the devcontainer.json it was made from (absent: an image or a snapshot) */
  source: SessionSource.nullable().optional(),
  /** the newest copy of this session on its replica target (null: none yet, or no target) */
  replica: z.lazy(() => ReplicaState).nullable().optional(),
})
export type Session = z.infer<typeof Session>

/** What a session's replica holds: where, the time of the state it copied, and how far behind it is. */
export const ReplicaState = z.object({
  server: z.string(),
  at: z.string(),
  kind: z.enum(['memory', 'disk']),
  /** how much newer the session's last durable state (pause or seal) is than the replica's */
  behindSeconds: z.number(),
  /** why the last try to bring it up to date failed (it is retried) */
  failure: z.string().nullable(),
})
export type ReplicaState = z.infer<typeof ReplicaState>

/** What a list of sessions shows of each one's meter. */
export const MeterSummary = Meter.pick({ cpuPercent: true, memoryBytes: true, cost: true, ratePerHour: true })
export type MeterSummary = z.infer<typeof MeterSummary>

/**
 * What a list of sessions shows of each one (`session.list`): who it is, where, its state and why,
 * its workspace and what it costs. The rest (environment, activity, previews, ssh line, origin) is in
 * the whole Session that `session.show` and `session.changed` carry; a list of 1,000 sends less than half.
 */
export const SessionSummary = Session.pick({
  id: true,
  name: true,
  server: true,
  state: true,
  mode: true,
  pausedBy: true,
  durable: true,
  image: true,
  route: true,
  workspace: true,
  createdAt: true,
  failure: true,
}).extend({ meter: MeterSummary.optional() })
export type SessionSummary = z.infer<typeof SessionSummary>

export const SessionOrigin = z.object({
  verb: z.string(),
  snapshot: z.string().nullable(),
  /** true when processes continued from a memory checkpoint; false when the session booted from disk */
  memory: z.boolean(),
  /** why memory did not come along, in one sentence (null when it did or was never asked for) */
  note: z.string().nullable(),
  at: z.string(),
})
export type SessionOrigin = z.infer<typeof SessionOrigin>

export const ServerKind = z.enum(['local', 'ssh'])
/**
 * Whether a server can pause sessions with their memory, found by a real test (a throwaway
 * container's memory dumped and restored the way pauses do it) when Berth first meets the engine,
 * on every reconnect, at `server test`, and again when the engine, its kernel or CRIU changes.
 */
export const MemoryPause = z.object({
  available: z.boolean(),
  /** fast: CRIU through containerd's own client; docker: Docker's checkpoint API; none */
  how: z.enum(['fast', 'docker', 'none']),
  /** why, in one sentence */
  note: z.string(),
  probedAt: z.string().nullable(),
  /** the measured dump rate (MiB/s), refined by every memory pause */
  dumpMiBps: z.number().nullable(),
  /** true: CRIU here cannot save another user's processes, so only sessions run as root keep memory */
  rootOnly: z.boolean().optional(),
})
export type MemoryPause = z.infer<typeof MemoryPause>
export const Server = z.object({
  name: z.string(),
  kind: ServerKind,
  url: z.string(),
  /** the Host of the user's ~/.ssh/config it is reached by, read again on every connection (null: the url as it is) */
  alias: z.string().nullable(),
  identity: z.string().nullable(),
  hostKeyFingerprint: z.string().nullable(),
  ratePerHour: z.number(),
  state: z.enum(['connected', 'disconnected', 'unknown']),
  createdAt: z.string(),
  /** null until Berth has tested the server */
  memoryPause: MemoryPause.nullable(),
})
export type Server = z.infer<typeof Server>

export const ServerTest = z.object({
  name: z.string(),
  version: z.string(),
  apiVersion: z.string(),
  rttMs: z.number(),
  checkpoint: z.boolean(),
  os: z.string(),
  kernel: z.string(),
  /** the memory-pause test, run again by `server test` */
  memoryPause: MemoryPause,
})
export type ServerTest = z.infer<typeof ServerTest>

export const HostKeyProbe = z.object({
  url: z.string(),
  keyType: z.string(),
  fingerprint: z.string(),
  known: z.boolean(),
})
export type HostKeyProbe = z.infer<typeof HostKeyProbe>

export const SnapshotKind = z.enum(['memory+disk', 'disk'])
/** Why a snapshot exists: a user named it, or Berth took it on the way through a verb. */
export const SnapshotReason = z.enum(['named', 'pause', 'seal', 'pre-rewind', 'fork', 'move', 'restart'])
export type SnapshotReason = z.infer<typeof SnapshotReason>
export const Snapshot = z.object({
  /** the tag-qualified name, e.g. nightly:v2 */
  id: z.string(),
  name: z.string(),
  version: z.number().int(),
  kind: SnapshotKind,
  /** the parent session (the snapshot outlives it) */
  sessionId: z.string().nullable(),
  server: z.string(),
  sizeBytes: z.number(),
  parentSnapshot: z.string().nullable(),
  createdAt: z.string(),
  auto: z.boolean(),
  testRestored: z.boolean(),
  tags: z.array(z.string()),
  reason: SnapshotReason.optional(),
  /** kept by retention because a fork, a named snapshot or a rewind depends on it */
  pinned: z.boolean().optional(),
  /** the parent session's name when it was taken */
  sessionName: z.string().nullable().optional(),
  /** a capture of a running session with its memory: how long its processes stood still (ms) */
  freezeMs: z.number().nullable().optional(),
  /** a capture of a running session without its memory: why */
  memoryNote: z.string().nullable().optional(),
  /** what a pause's checkpoint is (kept in its session while paused; spent once the session went on) */
  note: z.string().nullable().optional(),
})
export type Snapshot = z.infer<typeof Snapshot>

export const EventRecord = z.object({
  seq: z.number().int(),
  at: z.string(),
  sessionId: z.string().nullable(),
  kind: z.string(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
})
export type EventRecord = z.infer<typeof EventRecord>

/** Long work (image carry, move, fork) reports its stage and bytes as it goes. */
export const Progress = z.object({
  op: z.string(),
  sessionId: z.string().nullable(),
  server: z.string().nullable(),
  stage: z.string(),
  bytes: z.number(),
  total: z.number().nullable(),
  rate: z.number().nullable(),
  done: z.boolean(),
  message: z.string(),
})
export type Progress = z.infer<typeof Progress>
