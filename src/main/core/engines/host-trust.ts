// Which host key a server is trusted with: the one Berth recorded (its known_hosts, written when a
// server was added), else the one the user's own ssh already trusts (~/.ssh/known_hosts).
import type { HostKey, KnownHosts } from './known-hosts'
import { userTrust } from './user-known-hosts'

export function trustedKey(knownHosts: KnownHosts, host: string, port: number, presented: HostKey, userFiles?: string[]): HostKey | undefined {
  const own = knownHosts.lookup(host, port)
  if (own) return own
  const user = userTrust(host, port, presented, userFiles)
  // a revoked key is trusted by nobody: no key, so the connection asks for a confirmation it cannot get
  return user.verdict === 'trusted' || user.verdict === 'changed' ? user.key : undefined
}
