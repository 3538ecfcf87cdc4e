// Connected servers: adding one is a confirmed trust decision (the host key's fingerprint), and
// nothing is stored until the server has answered over ssh and Docker.
import type { CallResult } from '../../../shared/contract'
import type { HostKeyProbe, Server, ServerTest } from '../../../shared/models'
import { BerthError } from '../../../shared/errors'
import type { Checkpoints } from '../checkpoints/checkpoints'
import { memoryPauseOf, PROBE_ANSWER_MS } from '../checkpoints/criu-probe'
import type { EngineRegistry } from '../engines/engine-registry'
import type { HostKey, KnownHosts } from '../engines/known-hosts'
import { SshConnection } from '../engines/ssh-connection'
import { trustedKey } from '../engines/host-trust'
import { resolveServerAddress, urlOf, type SshEndpoint } from '../engines/ssh-hosts'
import { parseSshUrl, type SshTarget } from '../engines/ssh-url'
import { userTrust, type UserTrust } from '../engines/user-known-hosts'
import type { ServerRow, ServersRepo } from '../store/servers-repo'
import type { SessionsRepo } from '../store/sessions-repo'
import { LIVE } from '../sessions/lifecycle'
import { within } from '../deadline'

/** How long `server rm` waits for the server to answer before it leaves Berth's helper there. */
const HELPER_REMOVAL_MS = 5_000

/** The name and port a server's host key is recorded under (HostKeyAlias, when the config sets one). */
const keyName = (e: SshEndpoint) => (e.hostKeyAlias ? { host: e.hostKeyAlias, port: 22 } : { host: e.host, port: e.port })

export class ServerService {
  constructor(
    private readonly servers: ServersRepo,
    private readonly sessions: SessionsRepo,
    private readonly engines: EngineRegistry,
    private readonly knownHosts: KnownHosts,
    private readonly changed: (s: Server) => void,
    private readonly homeId: string,
    private readonly checkpoints: Checkpoints,
  ) {}

  toModel(row: ServerRow): Server {
    const engine = this.engines.peek(row.name)
    const state = row.kind === 'local' ? 'connected' : engine?.isConnected() ? 'connected' : engine ? 'disconnected' : 'unknown'
    return {
      name: row.name,
      kind: row.kind,
      url: row.url,
      alias: typeof row.options.sshAlias === 'string' ? row.options.sshAlias : null,
      identity: row.identity,
      hostKeyFingerprint: row.hostKeyFingerprint,
      ratePerHour: row.ratePerHour,
      state,
      createdAt: row.createdAt,
      memoryPause: row.memoryProbe ? memoryPauseOf(row.memoryProbe as unknown as Parameters<typeof memoryPauseOf>[0]) : null,
    }
  }

  show(name: string): Server {
    const row = this.servers.get(name)
    if (!row) throw new BerthError('not_found', `server not found: ${name}`)
    return this.toModel(row)
  }

  list(): Server[] {
    return this.servers.list().map((r) => this.toModel(r))
  }

  /** Reads the key a server presents, without trusting or storing it. */
  async probe(address: string, identity?: string): Promise<HostKeyProbe> {
    const endpoint = resolveServerAddress(address)
    const { host, port } = keyName(endpoint)
    const presented = await this.presentedKey(endpoint, identity)
    const known = this.knownHosts.lookup(host, port)
    const user = userTrust(host, port, presented)
    return { url: urlOf(endpoint), keyType: presented.keyType, fingerprint: presented.fingerprint, known: known ? known.fingerprint === presented.fingerprint : user.verdict === 'trusted' }
  }

  private async presentedKey(endpoint: SshEndpoint, identity: string | undefined): Promise<HostKey> {
    // the server itself is never trusted here, so the handshake stops right after it shows its key;
    // the jump hosts on the way must be trusted already
    const conn = new SshConnection({
      server: endpoint.alias ?? endpoint.host,
      endpoint: () => endpoint,
      identity: identity ?? null,
      trusted: (host, port, presented, jump) => (jump ? trustedKey(this.knownHosts, host, port, presented) : undefined),
      readyTimeoutMs: 8000,
    })
    try {
      await conn.get()
    } catch (e) {
      if (!conn.presented) throw e
    } finally {
      conn.close()
    }
    return conn.presented!
  }

  async add(args: { name: string; url: string; identity?: string | undefined; acceptHostKey?: string | undefined }): Promise<CallResult<'server.add'>> {
    if (this.servers.get(args.name)) throw new BerthError('conflict', `a server named ${args.name} already exists`)
    const endpoint = resolveServerAddress(args.url)
    // a Host of ~/.ssh/config is kept by its name and read again on every connection (see README)
    const alias = args.url.startsWith('ssh://') ? null : args.url
    const url = urlOf(endpoint)
    const { host, port } = keyName(endpoint)
    const where = `${host}:${port}`
    const known = this.knownHosts.lookup(host, port)
    // First contact: learn the presented key without trusting it.
    const probe = await this.presentedKey(endpoint, args.identity)
    if (known && known.fingerprint !== probe.fingerprint) {
      throw new BerthError(
        'host_key_mismatch',
        `the host key of ${where} changed: expected ${known.fingerprint}, got ${probe.fingerprint}; nothing was stored`,
        { expected: known.fingerprint, presented: probe.fingerprint },
      )
    }
    const trust = known ? `its host key ${probe.fingerprint} is the one Berth already trusts` : this.confirm(where, probe, userTrust(host, port, probe), args.acceptHostKey)
    // Trust the key for this check only; it is kept only when the whole check passes.
    if (!known) this.knownHosts.add(host, port, probe)
    const options = alias ? { sshAlias: alias } : {}
    const engine = this.engines.create({ name: args.name, kind: 'ssh', url, identity: args.identity ?? null, options })
    try {
      await engine.ready()
    } catch (e) {
      await engine.close()
      if (!known) this.knownHosts.remove(host, port)
      throw e
    }
    this.engines.adopt(args.name, engine)
    const row = this.servers.insert({ name: args.name, kind: 'ssh', url, identity: args.identity ?? null, hostKeyFingerprint: probe.fingerprint, ratePerHour: 0, options })
    // a new server is tested at once: whether it can pause with memory is known before the lid closes
    await this.checkpoints.ability(args.name, { fresh: true, waitMs: PROBE_ANSWER_MS + 2000 }).catch(() => undefined)
    const model = this.toModel(this.servers.get(args.name) ?? row)
    this.changed(model)
    return { ...model, hostKeyTrust: trust }
  }

  /** A key Berth has not recorded: trusted if the user's ssh trusts it, else only once confirmed. */
  private confirm(where: string, probe: HostKey, user: UserTrust, accepted: string | undefined): string {
    if (user.verdict === 'revoked') throw new BerthError('refused', `the host key of ${where} (${probe.fingerprint}) is marked @revoked in ${user.key.where}; nothing was stored`)
    if (user.verdict === 'changed') {
      throw new BerthError(
        'host_key_mismatch',
        `the host key of ${where} changed: ${user.key.where} has ${user.key.fingerprint}, the server presents ${probe.fingerprint}; nothing was stored`,
        { expected: user.key.fingerprint, presented: probe.fingerprint },
      )
    }
    if (accepted && accepted !== probe.fingerprint) {
      throw new BerthError(
        'host_key_mismatch',
        `the host key of ${where} is ${probe.fingerprint}, not the ${accepted} you confirmed; nothing was stored`,
        { expected: accepted, presented: probe.fingerprint },
      )
    }
    if (user.verdict === 'trusted') return `its host key ${probe.fingerprint} is the one you already trust: found in ${user.key.where}`
    if (!accepted) {
      throw new BerthError(
        'host_key_unconfirmed',
        `confirm the host key of ${where}: it is ${probe.fingerprint}; if that is the server's key, add again with --accept-host-key ${probe.fingerprint}`,
        { fingerprint: probe.fingerprint, keyType: probe.keyType },
      )
    }
    return `its host key ${probe.fingerprint} is the one you confirmed`
  }

  async remove(name: string): Promise<CallResult<'server.remove'>> {
    const row = this.servers.get(name)
    if (!row) return { removed: false }
    if (row.kind === 'local') throw new BerthError('refused', 'the local server cannot be removed')
    const live = this.sessions.list({ server: name }).filter((s) => LIVE.includes(s.state))
    if (live.length > 0) {
      throw new BerthError('refused', `server ${name} still has ${live.length} live session(s): finish or move them first`)
    }
    const helper = await this.removeHelper(name)
    await this.engines.forget(name)
    this.servers.remove(name)
    // the known_hosts entry belongs to the address (host and port), which another server may share
    // under another user or name
    const target = parseSshUrl(row.url)
    const stillUsed = this.servers.list().some((s) => s.kind === 'ssh' && sameAddress(s.url, target))
    if (!stillUsed) this.knownHosts.remove(target.host, target.port)
    return { removed: true, helper }
  }

  /**
   * Removes what Berth started on a server for itself: its root helper, a container bound to the
   * host's / in the host's pid namespace, which must not outlive Berth's use of the server. A
   * server that does not answer within a few seconds keeps it (the result says so).
   */
  private async removeHelper(name: string): Promise<'removed' | 'none' | 'left'> {
    const engine = this.engines.get(name)
    const removal = (async () => {
      await engine.ready()
      const found = await engine.docker.listContainers({ all: true, filters: { label: [`berth.home=${this.homeId}`, 'berth.role=helper'] } })
      for (const c of found) await engine.docker.getContainer(c.Id).remove({ force: true })
      return found.length ? ('removed' as const) : ('none' as const)
    })()
    return await within(removal, HELPER_REMOVAL_MS, () => 'left' as const).catch(() => 'left' as const)
  }

  async test(name: string): Promise<ServerTest> {
    const engine = this.engines.get(name)
    await engine.ready()
    const facts = await engine.facts()
    const times: number[] = []
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now()
      await engine.docker.ping()
      times.push(performance.now() - t0)
    }
    times.sort((a, b) => a - b)
    const memoryPause = await this.checkpoints.ability(name, { fresh: true })
    const row = this.engines.row(name)
    this.changed(this.toModel(row))
    return {
      name,
      version: facts.version,
      apiVersion: facts.apiVersion,
      rttMs: Math.round(times[2]! * 100) / 100,
      checkpoint: facts.experimental && row.options.checkpoint !== false,
      os: facts.os,
      kernel: facts.kernel,
      memoryPause,
    }
  }
}

/** Whether a server's url names the same ssh address as `target`, as its known_hosts entry does (host and port). */
function sameAddress(url: string, target: SshTarget): boolean {
  try {
    const t = parseSshUrl(url)
    return t.host === target.host && t.port === target.port
  } catch {
    return false
  }
}
