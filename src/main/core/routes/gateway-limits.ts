// What one client of the ssh gateway may use, and what the gateway offers on the wire.
import type { Algorithms } from 'ssh2'

export interface GatewayLimits {
  /** TCP connections at once, authenticated or not */
  maxConnections: number
  /** connections one peer address may hold open before authenticating (sshd's MaxStartups starts at 10) */
  maxUnauthenticatedPerPeer: number
  /** failed connections a peer may make within failureWindowMs; past it, its new connections are dropped at once */
  maxFailuresPerPeer: number
  failureWindowMs: number
  /** authenticated connections to one route at once */
  maxConnectionsPerRoute: number
  /** authentication requests (besides "none") one connection may make */
  maxAuthAttempts: number
  /** a connection that has not authenticated by then is dropped */
  authTimeoutMs: number
  /** open channels (sessions and forwards) on one connection */
  maxChannelsPerConnection: number
  /** an authenticated connection with no channel and no traffic for this long is closed */
  idleTimeoutMs: number
  /** env requests kept per session channel */
  maxEnv: number
  /** output waits while more than this is queued on a client's socket */
  socketHighWater: number
  /** a connection with more than this queued on its socket is cut (it stopped reading, and something ignores backpressure) */
  socketHardLimit: number
  /** a channel whose unread input passes this (its client ignored the window) is cut */
  channelInboxLimit: number
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxConnections: 256,
  maxUnauthenticatedPerPeer: 16,
  maxFailuresPerPeer: 30,
  failureWindowMs: 60_000,
  maxConnectionsPerRoute: 64,
  maxAuthAttempts: 10,
  authTimeoutMs: 30_000,
  maxChannelsPerConnection: 32,
  idleTimeoutMs: 15 * 60_000,
  maxEnv: 64,
  socketHighWater: 1024 * 1024,
  socketHardLimit: 32 * 1024 * 1024,
  channelInboxLimit: 4 * 1024 * 1024,
}

/**
 * Modern algorithms only, as ssh-audit grades them (no NIST curves, no SHA-1, no encrypt-and-MAC,
 * no compression). OpenSSH clients since 6.5 (Debian's 9.2 among them) offer curve25519,
 * ssh-ed25519, chacha20-poly1305 and AES-GCM first. ssh2 adds kex-strict-s-v00@openssh.com itself,
 * the strict key exchange that closes the Terrapin attack on chacha20-poly1305 and the -etm MACs.
 */
export const GATEWAY_ALGORITHMS: Algorithms = {
  kex: ['curve25519-sha256', 'curve25519-sha256@libssh.org'],
  serverHostKey: ['ssh-ed25519'],
  cipher: ['chacha20-poly1305@openssh.com', 'aes256-gcm@openssh.com', 'aes128-gcm@openssh.com'],
  hmac: ['hmac-sha2-256-etm@openssh.com', 'hmac-sha2-512-etm@openssh.com'],
  compress: ['none'],
}

/**
 * Counts, per peer address, the connections that have not authenticated yet and the ones that
 * failed to (ended without success after asking to authenticate). Keys are public keys, so this is
 * not about guessing them: it bounds the handshakes and signature checks a peer can make the core
 * do. On loopback every local process shares 127.0.0.1, so the limits are wide enough for a user's
 * own parallel clients (git, an editor, scp) and the window short.
 */
export class PeerGuard {
  private readonly pending = new Map<string, number>()
  private readonly failures = new Map<string, number[]>()
  private readonly warned = new Map<string, number>()

  constructor(
    private readonly limits: Pick<GatewayLimits, 'maxUnauthenticatedPerPeer' | 'maxFailuresPerPeer' | 'failureWindowMs'>,
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a new connection from `peer` may begin; if so it counts as pending until settled. */
  admit(peer: string): boolean {
    const failed = this.recentFailures(peer)
    const pending = this.pending.get(peer) ?? 0
    if (failed >= this.limits.maxFailuresPerPeer) return this.refuse(peer, 'failed', `${failed} failed connections in the last ${this.limits.failureWindowMs / 1000} s`)
    if (pending >= this.limits.maxUnauthenticatedPerPeer) return this.refuse(peer, 'pending', `${pending} connections still authenticating`)
    this.pending.set(peer, pending + 1)
    return true
  }

  /** Says why, once per peer and reason per window: a flood must not flood the log too. */
  private refuse(peer: string, reason: 'failed' | 'pending', why: string): false {
    const key = `${peer} ${reason}`
    const last = this.warned.get(key)
    if (last === undefined || this.now() - last >= this.limits.failureWindowMs) {
      this.warned.set(key, this.now())
      this.log(`ssh gateway: refusing new connections from ${peer} for now: ${why}`)
    }
    return false
  }

  /** The connection authenticated, or ended: it no longer counts as pending; `failed` adds a failure. */
  settle(peer: string, failed: boolean): void {
    const n = (this.pending.get(peer) ?? 1) - 1
    if (n > 0) this.pending.set(peer, n)
    else this.pending.delete(peer)
    if (!failed) return
    const list = this.failures.get(peer) ?? []
    list.push(this.now())
    // only the newest are needed to know whether the budget is spent
    if (list.length > this.limits.maxFailuresPerPeer) list.splice(0, list.length - this.limits.maxFailuresPerPeer)
    this.failures.set(peer, list)
  }

  private recentFailures(peer: string): number {
    const list = this.failures.get(peer)
    if (!list) return 0
    const since = this.now() - this.limits.failureWindowMs
    while (list.length && list[0]! < since) list.shift()
    if (!list.length) this.failures.delete(peer)
    return list.length
  }

}

/** 127.0.0.1 for ::ffff:127.0.0.1: one peer, however the socket names it. */
export function peerOf(address: string | undefined): string {
  const a = address ?? '?'
  return a.startsWith('::ffff:') ? a.slice(7) : a
}
