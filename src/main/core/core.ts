// The core: plain Node, no 'electron' import. The daemon and the Electron shell host the same one.
import { randomBytes } from 'node:crypto'
import { writeFileSync, rmSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { BerthError } from '../../shared/errors'
import type { CallName } from '../../shared/contract'
import { dispatch, type CallContext, type Handlers } from './api'
import { CoreBus } from './bus'
import { chosenSocket, resolveDockerEngine, type EngineChoice } from './engines/docker-endpoint'
import { Checkpoints } from './checkpoints/checkpoints'
import type { ProbeRecord } from './checkpoints/criu-probe'
import { EngineRegistry } from './engines/engine-registry'
import { KnownHosts } from './engines/known-hosts'
import { ServerService } from './servers/server-service'
import { SettingsService } from './settings/settings-service'
import { Lifecycle } from './sessions/lifecycle'
import { Recovery } from './sessions/recovery'
import { SessionService } from './sessions/session-service'
import { DatabaseLockedError, openDatabase, type Db } from './store/database'
import { EventsRepo } from './store/events-repo'
import { ServersRepo } from './store/servers-repo'
import { SessionsRepo } from './store/sessions-repo'
import { SettingsRepo } from './store/settings-repo'
import { StreamHub } from './streams/stream-hub'
import { VERSION } from './version'
import { ensurePrivateDir, ensurePrivateFile } from './durable-file'
import { logsDir } from './logs/rotating-log'

export interface CoreOptions {
  home: string
  host: 'daemon' | 'electron'
  /** the laptop's Docker socket (default: found as the docker CLI finds it, see engines/docker-endpoint.ts) */
  localSocket?: string
}

/** A component a later domain plugs in: it gets the core, adds handlers, and may start work. */
export interface CoreModule {
  start?(): Promise<void> | void
  stop?(): Promise<void> | void
}

export class Core {
  readonly bus = new CoreBus()
  readonly hub = new StreamHub()
  readonly db: Db
  readonly settingsRepo: SettingsRepo
  readonly settings: SettingsService
  readonly servers: ServersRepo
  readonly sessionsRepo: SessionsRepo
  readonly eventsRepo: EventsRepo
  readonly knownHosts: KnownHosts
  readonly engines: EngineRegistry
  /** the checkpoint primitive and what each server's memory-pause test found */
  readonly checkpoints: Checkpoints
  readonly lifecycle: Lifecycle
  readonly serverService: ServerService
  readonly sessions: SessionService
  readonly recovery: Recovery
  readonly homeId: string
  /** which engine is this machine's, and why (berth doctor shows it) */
  readonly localEngine: EngineChoice
  readonly startedAt = new Date().toISOString()
  readonly handlers: Handlers
  private readonly modules: CoreModule[] = []
  private closing = false
  onShutdownRequest: () => void = () => undefined

  private constructor(readonly options: CoreOptions) {
    const home = options.home
    // only its owner may enter the home, whatever the umask (secrets, keys and sockets live there)
    ensurePrivateDir(home)
    this.db = openExclusive(home)
    this.settingsRepo = new SettingsRepo(this.db)
    this.settings = new SettingsService(this.settingsRepo, this.bus)
    this.homeId = this.settingsRepo.get<string | null>('homeId', null) ?? this.newHomeId()
    this.servers = new ServersRepo(this.db)
    this.sessionsRepo = new SessionsRepo(this.db)
    this.eventsRepo = new EventsRepo(this.db)
    this.knownHosts = new KnownHosts(home)
    this.localEngine = options.localSocket ? chosenSocket(options.localSocket) : resolveDockerEngine()
    this.ensureLocalServer(this.localEngine.socket)
    this.engines = new EngineRegistry(
      this.servers,
      this.knownHosts,
      join(home, 'run'),
      (name) => {
        const row = this.servers.get(name)
        if (row) this.bus.emit('server.changed', this.serverService.toModel(row))
      },
      this.localEngine.problem,
    )
    this.checkpoints = new Checkpoints(this.engines, this.homeId, {
      load: (server) => (this.servers.get(server)?.memoryProbe ?? null) as ProbeRecord | null,
      save: (server, record) => this.servers.setMemoryProbe(server, record as unknown as Record<string, unknown>),
    })
    this.checkpoints.onAbility = (name) => {
      const row = this.servers.get(name)
      if (row) this.bus.emit('server.changed', this.serverService.toModel(row))
    }
    this.lifecycle = new Lifecycle(this.db, this.sessionsRepo, this.eventsRepo, (row) =>
      this.bus.emit('session.changed', this.sessions.toModel(row)),
    )
    this.serverService = new ServerService(
      this.servers,
      this.sessionsRepo,
      this.engines,
      this.knownHosts,
      (s) => this.bus.emit('server.changed', s),
      this.homeId,
      this.checkpoints,
    )
    this.sessions = new SessionService(this.sessionsRepo, this.servers, this.lifecycle, this.engines, this.hub, this.bus, this.homeId)
    this.recovery = new Recovery(this.sessionsRepo, this.engines, this.lifecycle, (row) => this.sessions.completeFinish(row))
    this.handlers = this.baseHandlers()
  }

  static async open(options: CoreOptions): Promise<Core> {
    const core = new Core(options)
    writeFileSync(join(options.home, 'daemon.pid'), `${process.pid}\n`, { mode: 0o600 })
    ensurePrivateFile(join(options.home, 'daemon.pid'))
    return core
  }

  /**
   * Plugs in a domain's handlers and background work. Each call has one owner: a second handler for
   * it is refused, so what a call does never depends on which module was installed last.
   */
  use(module: CoreModule, handlers: Partial<Handlers> = {}): void {
    const taken = (Object.keys(handlers) as CallName[]).filter((n) => this.handlers[n] !== undefined)
    if (taken.length) throw new Error(`calls already have a handler: ${taken.join(', ')}`)
    Object.assign(this.handlers, handlers)
    this.modules.push(module)
  }

  /** Recovery first, then every module's background work. */
  async start(): Promise<void> {
    await this.recovery.run()
    for (const m of this.modules) await m.start?.()
  }

  call(name: string, args: unknown, ctx: CallContext) {
    return dispatch(this.handlers, name, args, ctx)
  }

  private newHomeId(): string {
    const id = randomBytes(6).toString('hex')
    this.settingsRepo.set('homeId', id)
    return id
  }

  /** The local server's row names the engine chosen now (a broken choice keeps the last one, unused). */
  private ensureLocalServer(socket: string | null): void {
    const row = this.servers.get('local')
    if (!socket && row) return
    const url = `unix://${socket ?? '/var/run/docker.sock'}`
    if (!row) this.servers.insert({ name: 'local', kind: 'local', url, identity: null, hostKeyFingerprint: null, ratePerHour: 0, options: {} })
    else if (row.url !== url) this.servers.update('local', { url })
  }

  private baseHandlers(): Handlers {
    const s = this.sessions
    const handlers: Partial<Handlers> = {
      'daemon.info': () => ({ pid: process.pid, home: this.options.home, homeId: this.homeId, version: VERSION, host: this.options.host, startedAt: this.startedAt, logs: logsDir(this.options.home) }),
      'daemon.shutdown': () => {
        setImmediate(() => this.onShutdownRequest())
        return { ok: true }
      },
      'events.subscribe': (args, ctx) => {
        ctx.owner.subscribe?.(args.names)
        return { ok: true }
      },
      'settings.get': () => this.settings.get(),
      'settings.set': (a) => this.settings.set(a.patch),
      'server.add': (a) => this.serverService.add(a),
      'server.probe': (a) => this.serverService.probe(a.url, a.identity),
      'server.list': () => this.serverService.list(),
      'server.remove': (a) => this.serverService.remove(a.name),
      'server.test': (a) => this.serverService.test(a.name),
      'server.show': (a) => this.serverService.show(a.name),
      // session.create is the snapshots module's (a session may start from a snapshot), session.finish
      // the workspace module's (it guards unsaved work)
      'session.list': (a) => s.list(a),
      'session.show': (a) => s.showLive(a.id),
      'exec.open': (a, ctx) => s.openExec(a.id, a, ctx.owner),
      'stream.write': (a, ctx) => {
        this.hub.write(ctx.owner, a.streamId, a.data ? Buffer.from(a.data, 'base64') : undefined, !!a.eof)
        return { ok: true }
      },
      'stream.resize': (a, ctx) => {
        this.hub.resize(ctx.owner, a.streamId, a.cols, a.rows)
        return { ok: true }
      },
      'stream.ack': (a, ctx) => {
        this.hub.ack(ctx.owner, a.streamId, a.bytes)
        return { ok: true }
      },
      'stream.close': (a, ctx) => {
        this.hub.close(ctx.owner, a.streamId)
        return { ok: true }
      },
    }
    return handlers as Handlers
  }

  /** Names of calls without a handler: a module forgot to plug in (checked by a unit test). */
  missingHandlers(all: readonly CallName[]): CallName[] {
    return all.filter((n) => typeof this.handlers[n] !== 'function')
  }

  async close(): Promise<void> {
    if (this.closing) return
    this.closing = true
    for (const m of [...this.modules].reverse()) await Promise.resolve(m.stop?.()).catch(() => undefined)
    await this.engines.closeAll()
    try {
      const pidFile = join(this.options.home, 'daemon.pid')
      if (readFileSync(pidFile, 'utf8').trim() === String(process.pid)) rmSync(pidFile, { force: true })
    } catch {
      // already gone
    }
    this.db.close()
  }
}

/** Opens the home's database, holding its exclusive lock for the life of this process. */
function openExclusive(home: string): Db {
  try {
    return openDatabase(home, { exclusive: true })
  } catch (e) {
    if (!(e instanceof DatabaseLockedError)) throw e
    let pid = '?'
    try {
      pid = readFileSync(join(home, 'daemon.pid'), 'utf8').trim()
    } catch {
      // no pid file yet
    }
    throw new BerthError('busy', `another Berth process (pid ${pid}) already drives the engines for ${home}`)
  }
}
