// The routes domain plugged into the core: the ssh gateway and the preview proxy started with the
// core (ports from settings, the next free one if taken), the route's ssh line and previews on
// every Session, and the ssh config file kept current as sessions come and go.
import { join } from 'node:path'
import type { Session } from '../../../shared/models'
import type { EventName, EventPayload } from '../../../shared/contract'
import type { Settings } from '../../../shared/settings'
import type { Handlers } from '../api'
import type { Core, CoreModule } from '../core'
import type { PauseApi } from '../pause/pause-service'
import { LIVE } from '../sessions/lifecycle'
import { shapeOf } from '../sessions/session-shape'
import type { SessionRow } from '../store/sessions-repo'
import { ActivityTap } from './activity'
import { AgentForwarding } from './agent-forwarding'
import { AuthorizedKeys, checkAuthorizedKeys } from './authorized-keys'
import { ContainerPorts } from './container-ports'
import { loadOrCreateHostKey, routesDir, type GatewayHostKey } from './host-key'
import { listeningPorts } from './listening-ports'
import { previewUrl } from './preview-access'
import { PreviewProxy } from './preview-proxy'
import { PreviewSecrets } from './preview-secrets'
import { RouteTable } from './route-table'
import { hostAlias, includeLine, renderSshConfig, sshLine, writeAtomically } from './ssh-config'
import type { GatewayLimits } from './gateway-limits'
import { SshGateway } from './ssh-gateway'
import { within } from '../deadline'

const HOST = '127.0.0.1'
export const HOST_KEY_ALIAS = 'berth-gateway'
const PORTS_TIMEOUT_MS = 3000
/** a show right after another (a UI refreshing) reuses the ports read this recently */
const PORTS_FRESH_MS = 2000
/** states in which a session's processes stop: connected clients are told why their connection ends */
const LEAVING: Partial<Record<string, string>> = { pausing: 'pausing', restarting: 'restarting', moving: 'moving', finishing: 'finishing' }

export function log(message: string): void {
  process.stderr.write(`${new Date().toISOString()} ${message}\n`)
}

export class RoutesModule implements CoreModule {
  readonly table: RouteTable
  readonly gateway: SshGateway
  readonly preview: PreviewProxy
  readonly keys: AuthorizedKeys
  readonly previewSecrets: PreviewSecrets
  private readonly hostKey: GatewayHostKey
  private readonly ports = new ContainerPorts()
  private readonly dir: string
  private readonly configPath: string
  private readonly knownHostsPath: string
  /** listening ports per session, as last read from its container */
  private readonly previews = new Map<string, { containerId: string; ports: number[]; at: number }>()
  private readonly containers = new Map<string, string | null>()
  private readonly states = new Map<string, string>()
  private unsubscribe: (() => void) | undefined
  private rewriteTimer: NodeJS.Timeout | undefined
  private requested = { gateway: 0, preview: 0 }
  private rebinding: Promise<void> = Promise.resolve()
  private bound: () => void = () => undefined
  private readonly firstBind = new Promise<void>((r) => (this.bound = r))

  constructor(
    private readonly core: Core,
    limits: Partial<GatewayLimits> = {},
  ) {
    const settings = () => core.settings.get()
    this.dir = routesDir(core.options.home)
    this.configPath = join(this.dir, 'config')
    this.knownHostsPath = join(this.dir, 'known_hosts')
    this.hostKey = loadOrCreateHostKey(core.options.home)
    this.keys = new AuthorizedKeys(() => settings().authorizedKeys)
    core.settings.checks.push((_next, patch) => (patch.authorizedKeys ? checkAuthorizedKeys(patch.authorizedKeys) : undefined))
    this.table = new RouteTable(core.sessionsRepo, core.engines, settings)
    const activity = new ActivityTap(core.bus)
    this.gateway = new SshGateway({
      hostKey: this.hostKey,
      keys: this.keys,
      routes: this.table,
      ports: this.ports,
      activity,
      agent: new AgentForwarding(),
      settings,
      log,
      limits,
    })
    this.previewSecrets = new PreviewSecrets(core.db)
    this.preview = new PreviewProxy({ routes: this.table, secrets: this.previewSecrets, ports: this.ports, activity, log })
    core.sessions.decorate(() => {
      const gatewayPort = this.gatewayPort()
      const previewPort = this.previewPort()
      return (row, model) => this.decorate(row, model, gatewayPort, previewPort)
    })
    core.sessions.beforeShow.push((row) => this.refreshPreviews(row))
  }

  handlers(): Partial<Handlers> {
    return {
      'routes.info': async () => {
        await this.whenBound()
        return {
          gateway: {
            host: HOST,
            port: this.gatewayPort(),
            listening: this.gateway.listening,
            hostKeyFingerprint: this.hostKey.fingerprint,
            hostKeyAlias: HOST_KEY_ALIAS,
            connections: this.gateway.connections,
          },
          preview: { host: HOST, port: this.previewPort(), listening: this.preview.listening },
          sshConfig: { path: this.configPath, includeLine: includeLine(this.configPath) },
        }
      },
      'routes.sshConfig': async (a) => {
        await this.whenBound()
        const { text, hosts } = this.renderConfig()
        const written = a.write ? (writeAtomically(this.configPath, text), true) : false
        return { path: this.configPath, includeLine: includeLine(this.configPath), text, written, hosts }
      },
    }
  }

  /**
   * The ports are known once the first bind is done (the core starts modules after recovery, so a
   * call can arrive first): wait for it a little, so `berth ssh-config` never prints a port the
   * gateway did not get.
   */
  private async whenBound(): Promise<void> {
    await within(this.firstBind, 10_000, () => undefined)
  }

  async start(): Promise<void> {
    const s = this.core.settings.get()
    writeAtomically(this.knownHostsPath, `${HOST_KEY_ALIAS} ${this.hostKey.publicKey}\n`)
    await this.bind(s)
    this.bound()
    this.unsubscribe = this.core.bus.onContract((name, payload) => this.onEvent(name, payload))
    this.rewriteConfig()
  }

  async stop(): Promise<void> {
    this.unsubscribe?.()
    clearTimeout(this.rewriteTimer)
    await Promise.all([this.gateway.close(), this.preview.close()])
  }

  private gatewayPort(): number {
    return this.gateway.port || this.core.settings.get().gatewayPort
  }

  private previewPort(): number {
    return this.preview.port || this.core.settings.get().previewPort
  }

  /** Listens on the ports the settings ask for (or the next free ones), re-binding when they change. */
  private bind(s: Settings): Promise<void> {
    this.rebinding = this.rebinding.then(async () => {
      if (s.gatewayPort !== this.requested.gateway || !this.gateway.listening) {
        await this.gateway.stopListening()
        this.requested.gateway = s.gatewayPort
        try {
          const port = await this.gateway.listen(s.gatewayPort)
          log(`ssh gateway listening on ${HOST}:${port}${port !== s.gatewayPort ? ` (${s.gatewayPort} was taken)` : ''}, host key ${this.hostKey.fingerprint}`)
        } catch (e) {
          log(`ssh gateway could not listen: ${(e as Error).message}`)
        }
      }
      if (s.previewPort !== this.requested.preview || !this.preview.listening) {
        await this.preview.stopListening()
        this.requested.preview = s.previewPort
        try {
          const port = await this.preview.listen(s.previewPort)
          log(`previews at http://<route>-<port>-<key>.localhost:${port}/${port !== s.previewPort ? ` (${s.previewPort} was taken)` : ''}`)
        } catch (e) {
          log(`preview proxy could not listen: ${(e as Error).message}`)
        }
      }
      this.rewriteConfig()
    })
    return this.rebinding
  }

  private onEvent<N extends EventName>(name: N, payload: EventPayload<N>): void {
    if (name === 'settings.changed') {
      void this.bind(payload as Settings)
      return
    }
    if (name !== 'session.changed') return
    const s = payload as Session
    const was = this.states.get(s.id)
    this.states.set(s.id, s.state)
    const why = LEAVING[s.state]
    if (why && was !== s.state) {
      const again = s.state === 'finishing' ? '' : '; the same ssh line works again once it runs'
      this.gateway.notify(s.id, `session ${s.route} is ${why}: this connection ends here${again}`)
    }
    if (s.state === 'finished') this.states.delete(s.id)
    const before = this.containers.get(s.id)
    const now = s.state === 'running' ? s.containerId : null
    if (before && before !== now) {
      // the container is gone or another one runs the session now: forget what was learnt of it
      this.preview.forget(before)
      this.previews.delete(s.id)
    }
    if (s.state === 'finished') this.containers.delete(s.id)
    else this.containers.set(s.id, now)
    this.scheduleRewrite()
  }

  private decorate(row: SessionRow, model: Session, gatewayPort: number, previewPort: number): void {
    if (row.state === 'finished') return
    const cached = this.previews.get(row.id)
    const listening = row.state === 'running' && cached && cached.containerId === row.containerId ? cached.ports : []
    // a devcontainer's forwardPorts are previews whether or not something listens there yet
    const declared = row.state === 'running' ? (shapeOf(row.options).dev?.ports ?? []) : []
    const ports = [...new Set([...declared, ...listening])].sort((a, b) => a - b)
    model.sshLine = sshLine(row.route, gatewayPort, HOST)
    if (ports.length === 0) {
      model.previews = []
      return
    }
    const secret = this.previewSecrets.of(row)
    model.previews = ports.map((port) => ({ port, url: previewUrl(row.route, port, secret, previewPort) }))
  }

  /** Reads the ports a running session listens on (bounded in time: a slow server shows the last known list). */
  private async refreshPreviews(row: SessionRow): Promise<void> {
    if (row.state !== 'running' || !row.containerId) return
    const containerId = row.containerId
    const known = this.previews.get(row.id)
    if (known && known.containerId === containerId && Date.now() - known.at < PORTS_FRESH_MS) return
    const engine = this.core.engines.get(row.server)
    const ports = await within(
      listeningPorts(engine.docker, containerId, PORTS_TIMEOUT_MS).catch(() => undefined),
      PORTS_TIMEOUT_MS,
      () => undefined,
    )
    if (ports) this.previews.set(row.id, { containerId, ports, at: Date.now() })
  }

  private renderConfig(): { text: string; hosts: string[] } {
    const sessions = this.core.sessionsRepo
      .inStates([...LIVE, 'failed'])
      .filter((r) => r.state !== 'failed' || r.containerId)
      .map((r) => ({ route: r.route, name: r.name, server: r.server }))
    const text = renderSshConfig({
      host: HOST,
      port: this.gatewayPort(),
      hostKeyAlias: HOST_KEY_ALIAS,
      knownHostsFile: this.knownHostsPath,
      identityFiles: this.keys.identityFiles(),
      sessions,
    })
    return { text, hosts: sessions.map((s) => hostAlias(s.route)).sort() }
  }

  private scheduleRewrite(): void {
    clearTimeout(this.rewriteTimer)
    this.rewriteTimer = setTimeout(() => this.rewriteConfig(), 100)
    this.rewriteTimer.unref()
  }

  private rewriteConfig(): void {
    try {
      writeAtomically(this.configPath, this.renderConfig().text)
    } catch (e) {
      log(`could not write ${this.configPath}: ${(e as Error).message}`)
    }
  }
}

export function installRoutes(core: Core, pause?: PauseApi): RoutesModule {
  const m = new RoutesModule(core)
  if (pause) {
    // a connection resumes an auto-paused session; a user-paused one only when the setting says so
    m.table.setResumer(async (row, byUser) => {
      const r = byUser ? await pause.resume(row.id, { cause: 'connect' }) : await pause.resumeIfAutoPaused(row.id, 'connect')
      return r && r.resumed ? { mode: r.fallback ? `${r.mode}, ${r.fallback}` : r.mode, ms: r.ms } : null
    })
  }
  core.use(m, m.handlers())
  return m
}
