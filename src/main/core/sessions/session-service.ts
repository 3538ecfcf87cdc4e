// The session verbs of the foundation: create, list, show, exec, finish. Every state change goes
// through the Lifecycle (compare-and-set + events log).
import type Dockerode from 'dockerode'
import { SessionSource, type Limits, type RestartPolicy, type Session, type SessionState, type SessionSummary } from '../../../shared/models'
import { BerthError, reasonOf, toErrorBody } from '../../../shared/errors'
import type { CoreBus } from '../bus'
import type { Engine } from '../engines/engine'
import type { EngineRegistry } from '../engines/engine-registry'
import { progressOn, type ProgressReporter } from '../progress'
import { newRouteId, newSessionId } from './session-ids'
import { ensureImage } from '../engines/image-carrier'
import { nowIso } from '../store/database'
import type { ServersRepo } from '../store/servers-repo'
import type { SessionRow, SessionsRepo, SessionSummaryRow } from '../store/sessions-repo'
import type { StreamHub, StreamOwner } from '../streams/stream-hub'
import { containerSpec } from './container-spec'
import { containerName, volumeName, LABEL_HOME, LABEL_SESSION } from '../engines/docker-names'
import { startExec, type ExecOptions } from './exec'
import type { Lifecycle } from './lifecycle'
import { isNotFound } from '../engines/docker-errors'
import { mainOf, remoteOf, shapeOptions, type DevShape, type SessionShape } from './session-shape'

export interface CreateSessionInput {
  server?: string | undefined
  image: string
  name?: string | undefined
  env?: Record<string, string> | undefined
  workspace?: string | undefined
  /** names of stored secrets, installed as files under /run/berth/secrets/ on every start */
  secrets?: string[] | undefined
  /** what it may use of its server (the settings' defaults already merged in) */
  limits?: Limits | undefined
  /** when the image's own main process stops by itself (default on-failure) */
  restart?: RestartPolicy | undefined
  /** a devcontainer's part: the user and environment of its commands, its ports, start commands, volumes */
  dev?: DevShape | undefined
  /** where it came from (a devcontainer.json), as `session show` tells it */
  source?: SessionSource | undefined
  op?: string | undefined
}

/**
 * Adds live parts (meter, activity, route line...) to session models. It sees every row of a listing first, so it can read
 * what it needs in one query rather than one per row; then it fills in each row's model (a fresh
 * object it may write to).
 */
export type SessionDecorator = (rows: readonly SessionRow[]) => (row: SessionRow, model: Session) => void

/** Adds live parts to the summaries of a listing, the same way (only the meter has a part there). */
export type SummaryDecorator = (rows: readonly SessionSummaryRow[]) => (row: SessionSummaryRow, summary: SessionSummary) => void

/**
 * A feature's part in creating a session, asked before anything exists on the server: it may refuse
 * (throw), add to the stored row, and act once the container runs, before the session counts as running.
 */
export type CreateHook = (input: CreateSessionInput, id: string) => Promise<CreateStep | undefined>
export interface CreateStep {
  row?: Partial<Pick<SessionRow, 'workspace'>>
  afterStart?: (engine: Engine, containerId: string, progress: ProgressReporter) => Promise<void>
}

/** How a container came to run: kept is true when its processes came back (a memory or frozen resume), false for a boot. */
export interface StartKind {
  kept: boolean
}

/** Makes a paused session's lost container again from what Berth kept of it and says what came back. */
export type LostContainerRecreator = (id: string, op?: string) => Promise<string>

/** A session's row as first stored, before anything exists on its server. */
export function creatingRow(
  fields: Pick<SessionRow, 'id' | 'name' | 'server' | 'image' | 'route' | 'env' | 'secrets' | 'workspace'> & { options?: Record<string, unknown> },
): SessionRow {
  const at = nowIso()
  return {
    id: fields.id,
    name: fields.name,
    server: fields.server,
    state: 'creating',
    mode: null,
    pausedBy: null,
    durable: false,
    image: fields.image,
    containerId: null,
    route: fields.route,
    env: fields.env,
    secrets: fields.secrets,
    workspace: fields.workspace,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
    savedAt: null,
    failure: null,
    autoPause: true,
    idleAfterSeconds: null,
    options: fields.options ?? {},
    version: 0,
  }
}

export class SessionService {
  private readonly decorators: SessionDecorator[] = []
  private readonly summaryDecorators: SummaryDecorator[] = []
  /** Called with a fresh container before it starts. */
  readonly beforeStart: Array<(row: SessionRow, engine: Engine, containerId: string) => Promise<void>> = []
  /**
   * Called once a session's container runs (create, resume, restart, a move, a restore), before the
   * session counts as running: secrets live on a tmpfs that every start leaves empty.
   */
  readonly afterStart: Array<(row: SessionRow, engine: Engine, containerId: string, start: StartKind) => Promise<void>> = []
  /** Called before a command or terminal attaches to a session (an auto-paused one resumes here). */
  readonly beforeAttach: Array<(row: SessionRow) => Promise<void>> = []
  /** Called once a session finished and its container is gone (pause artefacts are removed here). */
  readonly afterFinish: Array<(row: SessionRow) => Promise<void>> = []
  /** Called before a session is shown, to refresh live parts that need a round trip (listening ports). */
  readonly beforeShow: Array<(row: SessionRow) => Promise<void>> = []
  private readonly createHooks: CreateHook[] = []
  private recreator: LostContainerRecreator | undefined

  constructor(
    private readonly sessions: SessionsRepo,
    private readonly servers: ServersRepo,
    private readonly lifecycle: Lifecycle,
    private readonly engines: EngineRegistry,
    private readonly hub: StreamHub,
    private readonly bus: CoreBus,
    private readonly homeId: string,
  ) {}

  decorate(d: SessionDecorator): void {
    this.decorators.push(d)
  }

  decorateSummaries(d: SummaryDecorator): void {
    this.summaryDecorators.push(d)
  }

  /** A feature's part in create (the workspace clones its folder); hooks run in install order. */
  onCreate(hook: CreateHook): void {
    this.createHooks.push(hook)
  }

  /** The one way back for a paused session whose container is gone (snapshots: a restart from its kept disk). */
  recreateLostWith(f: LostContainerRecreator): void {
    if (this.recreator) throw new Error('a way to recreate lost containers is already installed')
    this.recreator = f
  }

  canRecreateLost(): boolean {
    return this.recreator !== undefined
  }

  /** Makes a paused session's lost container again and says what came back. */
  recreateLost(id: string, op?: string): Promise<string> {
    if (!this.recreator) throw new BerthError('refused', 'this Berth cannot make a lost container again')
    return this.recreator(id, op)
  }

  toModel(row: SessionRow): Session {
    return this.toModels([row])[0]!
  }

  toModels(rows: readonly SessionRow[]): Session[] {
    const fill = this.decorators.map((d) => d(rows))
    return rows.map((row) => {
      const { version: _v, idleAfterSeconds: _i, options: _o, ...rest } = row
      const model: Session = rest
      const source = SessionSource.safeParse(row.options.source)
      if (source.success) model.source = source.data
      for (const f of fill) f(row, model)
      return model
    })
  }

  resolve(ref: string): SessionRow {
    const row = this.sessions.find(ref)
    if (!row) throw new BerthError('not_found', `session not found: ${ref}`)
    return row
  }

  /** The summaries of the sessions, newest first (what a list shows; show() has the rest). */
  list(filter: { state?: SessionState | undefined; server?: string | undefined }): SessionSummary[] {
    if (filter.server) this.engines.row(filter.server)
    const rows = this.sessions.listSummaries(filter)
    const fill = this.summaryDecorators.map((d) => d(rows))
    // each row is a fresh object: it becomes the summary
    for (const row of rows) for (const f of fill) f(row, row)
    return rows
  }

  show(ref: string): Session {
    return this.toModel(this.resolve(ref))
  }

  /** show(), after the beforeShow hooks refreshed what they keep (what `berth session show` calls). */
  async showLive(ref: string): Promise<Session> {
    const row = this.resolve(ref)
    await Promise.all(this.beforeShow.map((h) => h(row).catch(() => undefined)))
    return this.show(row.id)
  }

  /** Engines to take an image from, the local one first. */
  candidates(): Engine[] {
    return this.servers.list().map((s) => this.engines.get(s.name))
  }

  async create(input: CreateSessionInput): Promise<Session> {
    const serverName = input.server ?? 'local'
    const engine = this.engines.get(serverName)
    if (input.name && this.sessions.liveNameTaken(input.name)) {
      throw new BerthError('conflict', `a live session is already named ${input.name}`)
    }
    const id = newSessionId()
    const route = newRouteId((r) => this.sessions.routeTaken(r))
    const steps: CreateStep[] = []
    for (const hook of this.createHooks) {
      const step = await hook(input, id)
      if (step) steps.push(step)
    }
    await engine.ready()
    const row = creatingRow({
      id,
      name: input.name ?? route,
      server: serverName,
      image: input.image,
      route,
      env: input.env ?? {},
      secrets: input.secrets ?? [],
      workspace: null,
      options: { limits: input.limits ?? {}, ...(input.source ? { source: input.source } : {}) },
    })
    for (const step of steps) Object.assign(row, step.row)
    this.sessions.insert(row)
    this.lifecycle.note(id, 'created', { server: serverName, image: input.image, route })
    this.bus.emit('session.changed', this.toModel(row))
    const progress = progressOn(this.bus, input.op, id, serverName)
    let containerId: string | null = null
    try {
      await ensureImage({ target: engine, ref: input.image, homeId: this.homeId, candidates: () => this.candidates(), progress })
      progress.stage('create', `creating the container on ${serverName}`)
      // the image's own service stays its main process (Berth's keep-alive only when it has none)
      const config = (await engine.docker.getImage(input.image).inspect()).Config
      const shape: SessionShape = { main: mainOf(config, input.restart ?? 'on-failure'), limits: input.limits ?? {}, dev: input.dev ?? null }
      row.options = { ...row.options, ...shapeOptions(shape) }
      this.sessions.patch(id, { options: row.options }, nowIso())
      await engine.docker.createVolume({ Name: volumeName(id), Labels: { [LABEL_SESSION]: id, [LABEL_HOME]: this.homeId } })
      const container = await engine.docker.createContainer(
        containerSpec({ id, route, image: input.image, env: row.env, home: this.homeId, secrets: row.secrets.length > 0, shape }),
      )
      containerId = container.id
      this.sessions.patch(id, { containerId }, nowIso())
      for (const hook of this.beforeStart) await hook({ ...row, containerId }, engine, containerId)
      await container.start()
      await this.runAfterStart({ ...row, containerId }, engine, containerId)
      for (const step of steps) await step.afterStart?.(engine, containerId, progress)
      const running = this.lifecycle.transition(id, { from: ['creating'], to: 'running', verb: 'create', patch: { containerId } })
      progress.done('create', `session ${running.name} is running on ${serverName}`)
      return this.toModel(running)
    } catch (e) {
      const reason = reasonOf(e)
      await removeContainerAndVolume(engine.docker, id).catch(() => undefined)
      this.lifecycle.transition(id, { from: ['creating'], to: 'failed', verb: 'create', patch: { failure: reason, containerId: null } })
      if (e instanceof BerthError) throw e
      throw new BerthError('engine', `could not create the session: ${reason}`)
    }
  }

  /** Every verb that starts a session's container calls this before the session counts as running. */
  async runAfterStart(row: SessionRow, engine: Engine, containerId: string, start: StartKind = { kept: false }): Promise<void> {
    for (const hook of this.afterStart) await hook(row, engine, containerId, start)
  }

  async finish(ref: string): Promise<Session> {
    const row = this.resolve(ref)
    if (row.state === 'finished') return this.toModel(row)
    const finishing = this.lifecycle.transition(row.id, { from: ['running', 'paused', 'failed'], to: 'finishing', verb: 'finish' })
    return this.toModel(await this.completeFinish(finishing))
  }

  /** Destroys what the session holds on its server; also used by recovery after a crash. */
  async completeFinish(row: SessionRow): Promise<SessionRow> {
    const engine = this.engines.get(row.server)
    try {
      await removeContainerAndVolume(engine.docker, row.id)
    } catch (e) {
      const reason = reasonOf(e)
      this.lifecycle.transition(row.id, { from: ['finishing'], to: 'failed', verb: 'finish', patch: { failure: `finish did not complete: ${reason}` } })
      throw e
    }
    const finished = this.lifecycle.transition(row.id, {
      from: ['finishing'],
      to: 'finished',
      verb: 'finish',
      patch: { finishedAt: nowIso(), containerId: null, mode: null, pausedBy: null },
    })
    for (const hook of this.afterFinish) await hook(finished).catch(() => undefined)
    return finished
  }

  /** Opens a command stream in a running session. */
  async openExec(ref: string, opts: ExecOptions, owner: StreamOwner): Promise<{ streamId: string }> {
    let row = this.resolve(ref)
    if (this.beforeAttach.length) {
      for (const hook of this.beforeAttach) await hook(row)
      row = this.resolve(row.id)
    }
    if (row.state !== 'running' || !row.containerId) {
      if (row.state === 'finished') throw new BerthError('refused', `session ${row.name} finished`)
      throw new BerthError('conflict', `session ${row.name} is ${row.state}: it must be running to run a command`, { state: row.state })
    }
    const engine = this.engines.get(row.server)
    await engine.ready()
    // An interactive terminal (tty + stdin) counts as activity when someone types in it; any other
    // command counts as a foreground command for as long as it runs (idle auto-pause waits for it).
    const terminal = !!opts.tty && !!opts.stdin
    const streamId = this.hub.create(owner, { sessionId: row.id, terminal })
    const signal = terminal ? 'terminal' : 'command'
    this.bus.signal('activity', { sessionId: row.id, signal })
    if (!terminal) this.bus.signal('foreground', { sessionId: row.id, delta: 1 })
    // a devcontainer's remoteUser and remoteEnv are those of every command run in the session
    const remote = remoteOf(row)
    const run: ExecOptions = { ...opts, user: opts.user ?? remote.user, env: { ...remote.env, ...opts.env } }
    let handle
    try {
      handle = await startExec(engine.docker, row.containerId, run, (fd, d) => this.hub.data(streamId, fd, d))
    } catch (e) {
      if (!terminal) this.bus.signal('foreground', { sessionId: row.id, delta: -1 })
      this.hub.exit(streamId, null, toErrorBody(e))
      throw e
    }
    this.hub.attach(streamId, handle)
    void handle.exit.then(({ code, dropped }) => {
      if (!terminal) this.bus.signal('foreground', { sessionId: row.id, delta: -1 })
      this.bus.signal('activity', { sessionId: row.id, signal })
      if (dropped) {
        this.hub.exit(streamId, null, { code: 'unreachable', message: `the connection to server ${row.server} dropped while the command ran` })
      } else this.hub.exit(streamId, code)
    })
    return { streamId }
  }
}

export async function removeContainerAndVolume(docker: Dockerode, sessionId: string): Promise<void> {
  try {
    await docker.getContainer(containerName(sessionId)).remove({ force: true, v: true })
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
  try {
    await docker.getVolume(volumeName(sessionId)).remove()
  } catch (e) {
    if (!isNotFound(e)) throw e
  }
}
