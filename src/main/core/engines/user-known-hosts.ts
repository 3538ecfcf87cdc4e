// The host keys the user already trusts: ~/.ssh/known_hosts (and the system's
// /etc/ssh/ssh_known_hosts), read the way ssh reads them: comma-separated patterns with * and ?
// and !negation, [host]:port for other ports, hashed entries (|1|base64 salt|base64
// HMAC-SHA1(salt, name)), @revoked keys; @cert-authority lines are not host keys and are skipped.
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { glob } from 'ssh-config'
import { fingerprintOf } from './known-hosts'

export interface KnownKey {
  keyType: string
  key: string
  fingerprint: string
  /** where it was found: "~/.ssh/known_hosts line 3 (hashed)" */
  where: string
  revoked: boolean
}

export const userKnownHostsFiles = (home = homedir()) => [join(home, '.ssh', 'known_hosts'), join(home, '.ssh', 'known_hosts2'), '/etc/ssh/ssh_known_hosts']

/** The name known_hosts records a host by: "host" on port 22, "[host]:port" otherwise. */
export const knownHostsName = (host: string, port: number) => (port === 22 ? host : `[${host}]:${port}`)

function hashedMatch(entry: string, name: string): boolean {
  const [, magic, salt, hash] = entry.split('|')
  if (magic !== '1' || !salt || !hash) return false
  return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash
}

/** Whether one known_hosts host field names `name` (ssh_config's pattern lists, negations first). */
export function hostFieldMatches(field: string, name: string): boolean {
  return field.startsWith('|') ? hashedMatch(field, name) : glob(field, name)
}

/** Every key the files record for host:port, in file order. */
export function userKnownKeys(host: string, port: number, files: string[] = userKnownHostsFiles(), home = homedir()): KnownKey[] {
  const name = knownHostsName(host, port)
  const found: KnownKey[] = []
  for (const file of files) {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    const shown = file.startsWith(home + '/') ? `~${file.slice(home.length)}` : file
    text.split('\n').forEach((raw, i) => {
      const line = raw.trim()
      if (!line || line.startsWith('#')) return
      let fields = line.split(/\s+/)
      let revoked = false
      if (fields[0]!.startsWith('@')) {
        if (fields[0] !== '@revoked') return
        revoked = true
        fields = fields.slice(1)
      }
      const [hosts, keyType, key] = fields
      if (!hosts || !keyType || !key || !hostFieldMatches(hosts, name)) return
      let fingerprint: string
      try {
        fingerprint = fingerprintOf(Buffer.from(key, 'base64'))
      } catch {
        return
      }
      found.push({ keyType, key, fingerprint, revoked, where: `${shown} line ${i + 1}${hosts.startsWith('|') ? ' (hashed)' : ''}` })
    })
  }
  return found
}

export type UserTrust =
  | { verdict: 'trusted'; key: KnownKey }
  | { verdict: 'changed'; key: KnownKey }
  | { verdict: 'revoked'; key: KnownKey }
  | { verdict: 'unknown' }

/** What the user's files say of the key a host presented. */
export function userTrust(host: string, port: number, presented: { keyType: string; fingerprint: string }, files?: string[], home?: string): UserTrust {
  const keys = userKnownKeys(host, port, files, home)
  const revoked = keys.find((k) => k.revoked && k.fingerprint === presented.fingerprint)
  if (revoked) return { verdict: 'revoked', key: revoked }
  const same = keys.find((k) => !k.revoked && k.fingerprint === presented.fingerprint)
  if (same) return { verdict: 'trusted', key: same }
  // as ssh: another key of the same type for this host means it changed
  const other = keys.find((k) => !k.revoked && k.keyType === presented.keyType)
  if (other) return { verdict: 'changed', key: other }
  return { verdict: 'unknown' }
}
