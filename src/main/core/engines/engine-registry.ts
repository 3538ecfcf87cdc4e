// One Engine per server row, created on first use and shared by every verb.
import { BerthError } from '../../../shared/errors'
import type { ServerRow, ServersRepo } from '../store/servers-repo'
import type { Engine } from './engine'
import type { KnownHosts } from './known-hosts'
import { LocalEngine } from './local-engine'
import { SshEngine } from './ssh-engine'

export class EngineRegistry {
  private readonly engines = new Map<string, Engine>()

  constructor(
    private readonly servers: ServersRepo,
    private readonly knownHosts: KnownHosts,
    private readonly runDir: string,
    private readonly onState: (server: string, state: 'connected' | 'disconnected') => void,
    /** why this machine's engine cannot be used (a broken docker context), if it cannot */
    private readonly localProblem: string | null = null,
  ) {}

  row(name: string): ServerRow {
    const row = this.servers.get(name)
    if (!row) throw new BerthError('not_found', `server not found: ${name}`)
    return row
  }

  get(name: string): Engine {
    const existing = this.engines.get(name)
    if (existing) return existing
    const engine = this.create(this.row(name))
    this.engines.set(name, engine)
    return engine
  }

  /** Creates an engine for a row that is not stored yet (server add probes with it first). */
  create(row: Pick<ServerRow, 'name' | 'kind' | 'url' | 'identity' | 'options'>): Engine {
    if (row.kind === 'local') return new LocalEngine(row.name, row.url.replace(/^unix:\/\//, ''), this.localProblem)
    const alias = typeof row.options.sshAlias === 'string' ? row.options.sshAlias : null
    const engine = new SshEngine(row.name, row.url, row.identity, this.knownHosts, this.runDir, alias)
    engine.connection.on('state', (s: 'connected' | 'disconnected') => this.onState(row.name, s))
    return engine
  }

  /** Keeps an engine that was created (and verified) before its row was stored. */
  adopt(name: string, engine: Engine): void {
    this.engines.set(name, engine)
  }

  peek(name: string): Engine | undefined {
    return this.engines.get(name)
  }

  async forget(name: string): Promise<void> {
    const e = this.engines.get(name)
    this.engines.delete(name)
    await e?.close()
  }

  async closeAll(): Promise<void> {
    const all = [...this.engines.values()]
    this.engines.clear()
    await Promise.all(all.map((e) => e.close().catch(() => undefined)))
  }
}
