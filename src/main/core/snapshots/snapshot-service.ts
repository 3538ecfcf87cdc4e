// Snapshots: tag-qualified names (nightly:v1, nightly:v2), pages newest first, what each holds on
// its server, retention of automatic checkpoints, and the session lineage (parent links).
import { shapeOf, shapeOptions } from '../sessions/session-shape'
import type { z } from 'zod'
import type { SnapshotPage } from '../../../shared/contract/snapshots'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { SessionOrigin, Snapshot, SnapshotReason } from '../../../shared/models'
import type { CoreBus } from '../bus'
import type { Engine } from '../engines/engine'
import type { EngineRegistry } from '../engines/engine-registry'
import type { ProgressReporter } from '../progress'
import { type Lifecycle, stateError } from '../sessions/lifecycle'
import type { SessionService } from '../sessions/session-service'
import type { SettingsService } from '../settings/settings-service'
import { nowIso } from '../store/database'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { CheckpointRef, SnapshotDetail, SnapshotRow, SnapshotsRepo } from '../store/snapshots-repo'
import { captureDisk, holdCheckpoint } from './capture'
import type { MemoryParts } from './memory'
import type { Transfer } from './transfer'
import { removeContainer, removeImageTag, removeVolume } from './server-steps'
import { SessionLocks } from './session-locks'
import { snapshotHolder, snapshotImage, snapshotVolume } from '../engines/docker-names'
import { autoName, parseSnapshotId, snapshotId } from './snapshot-names'
import { dropLiveCheckpoint, liveCommitAndDump, liveSupport, type LiveOutcome } from './live-capture'

export interface SnapshotContext {
  /** memory checkpoints, on top of pause's checkpoint primitive */
  memory: MemoryParts
  /** carries parts between servers (with pause's root helper) */
  transfer: Transfer
  repo: SnapshotsRepo
  sessionsRepo: SessionsRepo
  sessions: SessionService
  engines: EngineRegistry
  lifecycle: Lifecycle
  bus: CoreBus
  settings: SettingsService
  homeId: string
}

/** Reasons whose snapshots are automatic checkpoints (kept K per session by retention). */
const AUTOMATIC: readonly SnapshotReason[] = ['pause', 'seal', 'move', 'restart', 'fork']

export interface CaptureOptions {
  reason: SnapshotReason
  /** the user's name; automatic snapshots are named after the session */
  name?: string | undefined
  /** freeze the processes for the instant of the commit (named snapshots; never seals) */
  freeze: boolean
  /** a memory checkpoint the session's container holds (a memory pause), kept with the snapshot */
  memory?: { container: string; name: string; bytes: number } | null | undefined
  progress?: ProgressReporter | undefined
  /** a running session: keep its memory with a brief freeze (live-capture.ts) */
  live?: boolean | undefined
  /** why a running session's memory is not kept, told with the snapshot */
  memoryNote?: string | null | undefined
}

const encodeToken = (seq: number) => Buffer.from(`s${seq}`).toString('base64url')
function decodeToken(token: string): number {
  const m = /^s(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'))
  if (!m) throw new BerthError('usage', 'not a page token: pass the `next` value of the previous page')
  return Number(m[1])
}

export class SnapshotService {
  readonly locks = new SessionLocks()
  private readonly keepers: Array<(sessionId: string, server: string) => boolean> = []
  constructor(readonly ctx: SnapshotContext) {}

  /** Copies of a session on other servers that another domain keeps on purpose (replicas): the leftover sweep leaves them. */
  keepCopies(keeps: (sessionId: string, server: string) => boolean): void {
    this.keepers.push(keeps)
  }

  keeps(sessionId: string, server: string): boolean {
    return this.keepers.some((k) => k(sessionId, server))
  }

  toModel(row: SnapshotRow): Snapshot {
    return {
      id: row.id,
      name: row.name,
      version: row.version,
      kind: row.kind,
      sessionId: row.sessionId,
      server: row.server,
      sizeBytes: row.sizeBytes,
      parentSnapshot: row.parentSnapshot,
      createdAt: row.createdAt,
      auto: row.auto,
      testRestored: row.testRestored,
      tags: row.tags,
      reason: row.reason,
      pinned: this.ctx.repo.isPinned(row.id),
      sessionName: row.detail.sessionName ?? null,
      freezeMs: row.detail.freezeMs ?? null,
      memoryNote: row.detail.memoryNote ?? null,
      note: row.detail.borrowed ? (row.detail.note ?? null) : null,
    }
  }

  private changed(row: SnapshotRow | undefined): void {
    if (row) this.ctx.bus.emit('snapshot.changed', this.toModel(row))
  }

  resolve(ref: string): SnapshotRow {
    const row = this.ctx.repo.resolve(ref)
    if (!row || row.state === 'deleting') throw new BerthError('not_found', `snapshot not found: ${ref}`)
    if (row.state !== 'ready') throw new BerthError('conflict', `snapshot ${row.id} is still being written`)
    return row
  }

  show(ref: string): Snapshot {
    return this.toModel(this.resolve(ref))
  }

  list(args: {
    session?: string | undefined
    server?: string | undefined
    name?: string | undefined
    auto?: boolean | undefined
    limit?: number | undefined
    next?: string | undefined
  }): z.infer<typeof SnapshotPage> {
    const limit = args.limit ?? 50
    let sessionId: string | undefined
    if (args.session) sessionId = this.ctx.sessions.resolve(args.session).id
    if (args.server) this.ctx.engines.row(args.server)
    const rows = this.ctx.repo.page(
      { sessionId, server: args.server, name: args.name, auto: args.auto, beforeSeq: args.next ? decodeToken(args.next) : undefined },
      limit + 1,
    )
    const more = rows.length > limit
    const items = rows.slice(0, limit)
    return { items: items.map((r) => this.toModel(r)), next: more ? encodeToken(items[items.length - 1]!.seq) : null }
  }

  /** The snapshot a session's current state descends from (its last capture, or what it was restored from). */
  head(row: SessionRow): string | null {
    const h = row.options.snapshotHead
    return typeof h === 'string' ? h : null
  }

  /** Changes one key of a session's options without disturbing the others. */
  setOption(sessionId: string, key: string, value: unknown): void {
    const cur = this.ctx.sessionsRepo.get(sessionId)
    if (!cur) return
    this.ctx.sessionsRepo.patch(sessionId, { options: { ...cur.options, [key]: value } }, nowIso())
  }

  setOrigin(sessionId: string, origin: SessionOrigin): void {
    this.setOption(sessionId, 'origin', origin)
  }

  /**
   * Captures a session's current disk into a new snapshot on its server. The row exists in state
   * `creating` while artefacts are written, so a crash half way is cleaned up on the next start.
   */
  async capture(row: SessionRow, opts: CaptureOptions): Promise<SnapshotRow> {
    const engine = this.ctx.engines.get(row.server)
    await engine.ready()
    const name = opts.name ?? autoName(row.name, opts.reason)
    const version = this.ctx.repo.reserveVersion(name)
    const id = snapshotId(name, version)
    const names = {
      snapshotId: id,
      image: snapshotImage(this.ctx.homeId, name, version),
      volume: snapshotVolume(this.ctx.homeId, name, version),
    }
    const detail: SnapshotDetail = {
      sessionName: row.name,
      route: row.route,
      env: row.env,
      workspace: row.workspace,
      originImage: typeof row.options.originImage === 'string' ? row.options.originImage : row.image,
      secrets: row.secrets,
      shape: shapeOptions(shapeOf(row.options)),
    }
    const auto = AUTOMATIC.includes(opts.reason)
    const inserted = this.ctx.repo.insert({
      id,
      name,
      version,
      kind: 'disk',
      sessionId: row.id,
      server: row.server,
      imageRef: null,
      checkpoint: null,
      volumeRef: null,
      sizeBytes: 0,
      parentSnapshot: this.head(row),
      auto,
      testRestored: false,
      tags: [],
      detail,
      createdAt: nowIso(),
      reason: opts.reason,
      state: 'creating',
    })
    opts.progress?.stage('capture', opts.live ? `freezing ${row.name} briefly to capture its memory and disk as ${id}` : `capturing ${row.name}'s disk as ${id}`)
    let live: LiveOutcome | undefined
    const commit = opts.live ? async () => void (live = await liveCommitAndDump(this.ctx.memory, row, names.image, id)) : undefined
    try {
      const disk = await captureDisk(engine, this.ctx.homeId, row, names, opts.freeze, commit)
      const memory = opts.memory ?? live?.checkpoint
      let checkpoint: CheckpointRef | null = null
      if (memory) {
        opts.progress?.stage('capture', `keeping ${row.name}'s memory with ${id}`)
        try {
          checkpoint = await holdCheckpoint(engine, this.ctx.memory, this.ctx.homeId, { ...names, holder: snapshotHolder(this.ctx.homeId, name, version) }, memory)
        } catch (e) {
          await this.removeArtefacts({ ...inserted, imageRef: disk.imageRef, volumeRef: disk.volumeRef }).catch(() => undefined)
          throw e
        }
      }
      const told = live ? { freezeMs: live.freezeMs, ...(live.note ? { memoryNote: live.note } : {}) } : opts.memoryNote ? { memoryNote: opts.memoryNote } : {}
      const ready = this.ctx.repo.update(id, {
        kind: checkpoint ? 'memory+disk' : 'disk',
        imageRef: disk.imageRef,
        volumeRef: disk.volumeRef,
        checkpoint,
        sizeBytes: disk.layerBytes + disk.volumeBytes + (checkpoint?.bytes ?? 0),
        detail: { ...detail, layerBytes: disk.layerBytes, volumeBytes: disk.volumeBytes, ...told },
        state: 'ready',
      })!
      this.setOption(row.id, 'snapshotHead', id)
      this.ctx.lifecycle.note(row.id, 'snapshot', { snapshot: id, reason: opts.reason, bytes: ready.sizeBytes })
      this.changed(ready)
      return ready
    } catch (e) {
      this.ctx.repo.remove(inserted.id)
      throw e instanceof BerthError ? e : new BerthError('engine', `could not snapshot ${row.name}: ${oneSentence((e as Error).message)}`)
    } finally {
      await dropLiveCheckpoint(this.ctx.memory, row.server, live)
    }
  }

  /**
   * A named snapshot of a running or paused session. It runs under the session's snapshot lock and
   * as the session's one piece of pause work: a pause or resume that arrives meanwhile waits for it
   * (a commit that freezes the container must not meet a pause's freeze or checkpoint).
   */
  async create(ref: string, name: string | undefined, progress?: ProgressReporter): Promise<Snapshot> {
    const first = this.ctx.sessions.resolve(ref)
    const pause = this.ctx.memory.pause
    const exclusive = <T>(fn: () => Promise<T>): Promise<T> => pause.exclusive(first.id, fn)
    return await this.locks.run(first.id, () => exclusive(async () => {
      const row = this.ctx.sessions.resolve(first.id)
      if (!['running', 'paused'].includes(row.state)) {
        throw stateError(row, 'snapshot')
      }
      const live = await liveSupport(this.ctx.memory, row)
      const snap = await this.capture(row, {
        reason: 'named',
        name: name ?? row.name,
        freeze: row.state === 'running' && !live.live,
        memory: this.ctx.memory.pausedCheckpoint(row),
        live: live.live,
        memoryNote: live.note,
        progress,
      })
      progress?.done('capture', `snapshot ${snap.id} of ${row.name} is ready`, snap.sizeBytes)
      return this.toModel(snap)
    }))
  }

  async remove(ref: string): Promise<{ deleted: boolean; id?: string }> {
    const row = this.ctx.repo.resolve(ref)
    if (!row) return { deleted: false }
    this.ctx.repo.update(row.id, { state: 'deleting' })
    await this.removeArtefacts(row)
    this.ctx.repo.remove(row.id)
    this.ctx.repo.unpinBy(row.id)
    return { deleted: true, id: row.id }
  }

  /** Deletes what a snapshot holds on its server; a missing piece counts as deleted. */
  async removeArtefacts(row: SnapshotRow): Promise<void> {
    if (row.detail.borrowed) return
    const engine = this.ctx.engines.get(row.server)
    await removeContainer(engine, snapshotHolder(this.ctx.homeId, row.name, row.version))
    if (row.volumeRef) await removeVolume(engine, row.volumeRef)
    if (row.imageRef) await removeImageTag(engine, row.imageRef)
  }

  /** Keeps the newest K automatic checkpoints of a session, never a pinned one. */
  async retain(sessionId: string): Promise<string[]> {
    const keep = this.ctx.settings.get().keepAutomatic
    const autos = this.ctx.repo.forSession(sessionId, { auto: true }).filter((s) => !s.detail.borrowed && !this.ctx.repo.isPinned(s.id))
    const drop = autos.slice(keep)
    const dropped: string[] = []
    for (const s of drop) {
      try {
        await this.remove(s.id)
        dropped.push(s.id)
      } catch (e) {
        this.ctx.lifecycle.note(sessionId, 'retention-failed', { snapshot: s.id, reason: oneSentence((e as Error).message) })
      }
    }
    if (dropped.length) this.ctx.lifecycle.note(sessionId, 'retention', { dropped, kept: keep })
    return dropped
  }

  /** A snapshot that can make containers (a pause's own checkpoint cannot: it lives in the session). */
  restorable(ref: string): SnapshotRow {
    const row = this.resolve(ref)
    if (row.detail.borrowed || !row.imageRef) {
      throw new BerthError(
        'refused',
        `snapshot ${row.id} is the checkpoint of a pause, kept inside its session; resume the session, or snapshot it (berth snapshot create ${row.detail.sessionName ?? row.sessionId ?? 'ID'}) to start other sessions from it`,
      )
    }
    return row
  }

  /** The name a pause's checkpoint is listed under, reserved as the pause starts (its events say it too). */
  pauseName(session: SessionRow): string {
    const name = autoName(session.name, 'pause')
    return snapshotId(name, this.ctx.repo.reserveVersion(name))
  }

  /** Every durable pause leaves a checkpoint: listed as an automatic snapshot, under the name its pause reserved. */
  recordPause(
    session: SessionRow,
    pause: { seq: number; mode: string | null; checkpoint: string | null; image: string | null; bytes: number; containerId: string; server: string; snapshot: string; detail?: Record<string, unknown> },
  ): SnapshotRow {
    const listed = typeof pause.detail?.listed === 'string' ? pause.detail.listed : this.pauseName(session)
    const existing = this.ctx.repo.get(listed)
    if (existing) return existing
    const { name, version } = parseSnapshotId(listed)
    const row = this.ctx.repo.insert({
      id: listed,
      name,
      version: version ?? 1,
      kind: pause.mode === 'memory' && pause.checkpoint ? 'memory+disk' : 'disk',
      sessionId: session.id,
      server: pause.server,
      imageRef: pause.image,
      checkpoint: pause.mode === 'memory' && pause.checkpoint ? { name: pause.checkpoint, container: pause.containerId, bytes: pause.bytes } : null,
      volumeRef: null,
      sizeBytes: pause.bytes,
      parentSnapshot: this.head(session),
      auto: true,
      testRestored: false,
      tags: [],
      detail: { sessionName: session.name, route: session.route, borrowed: true, note: "the checkpoint of this pause, kept in the session's container while it is paused" },
      createdAt: nowIso(),
      reason: 'pause',
      state: 'ready',
    })
    this.changed(row)
    return row
  }

  /**
   * The session left its pause (resumed, moved, failed over): its checkpoint stays listed as what it
   * is, a pause in the session's history that it went on from, which nothing can be made from any
   * more. The newest of these records are kept (keepAutomatic of them), the older ones go.
   */
  spendPauseRecords(sessionId: string, how = 'the session went on from it'): void {
    const pauses = this.ctx.repo.forSession(sessionId, { reason: 'pause' }).filter((s) => s.detail.borrowed)
    for (const s of pauses) {
      if (s.detail.spent) continue
      this.changed(this.ctx.repo.update(s.id, { checkpoint: null, imageRef: null, detail: { ...s.detail, spent: true, note: `the checkpoint of a pause; ${how}` } }))
    }
    const keep = this.ctx.settings.get().keepAutomatic
    for (const s of pauses.filter((p) => !this.ctx.repo.isPinned(p.id)).slice(keep)) this.ctx.repo.remove(s.id)
  }

  markRestored(id: string): void {
    const row = this.ctx.repo.get(id)
    if (row && !row.testRestored) this.changed(this.ctx.repo.update(id, { testRestored: true }))
  }

  /** Finishes what a crash interrupted: half-written snapshots go, half-deleted ones finish going. */
  async reconcile(): Promise<void> {
    for (const row of [...this.ctx.repo.inState('creating'), ...this.ctx.repo.inState('deleting')]) {
      try {
        const engine: Engine = this.ctx.engines.get(row.server)
        await engine.ready()
        await this.removeArtefacts({
          ...row,
          imageRef: row.imageRef ?? snapshotImage(this.ctx.homeId, row.name, row.version),
          volumeRef: row.volumeRef ?? snapshotVolume(this.ctx.homeId, row.name, row.version),
        })
        this.ctx.repo.remove(row.id)
      } catch {
        // the server is unreachable: try again on the next start
      }
    }
  }
}
