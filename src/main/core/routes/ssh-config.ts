// The ssh config file Berth keeps: a Host block per live session, in its own file that the user
// Includes from ~/.ssh/config (Berth prints that one line and never edits ~/.ssh/config). Each
// block pins the gateway's host key through a known_hosts file of Berth's own, so the first
// connection asks nothing and a changed key would be refused.
import { existsSync, readFileSync } from 'node:fs'
import { ensurePrivateFile, writeFileDurably } from '../durable-file'

export interface SshConfigInput {
  host: string
  port: number
  hostKeyAlias: string
  knownHostsFile: string
  identityFiles: string[]
  sessions: Array<{ route: string; name: string; server: string }>
}

/** "calm-otter-42.berth": the Host name a session gets in the ssh config. */
export const hostAlias = (route: string) => `${route}.berth`

export function sshLine(route: string, port: number, host = '127.0.0.1'): string {
  return port === 22 ? `ssh ${route}@${host}` : `ssh -p ${port} ${route}@${host}`
}

/** ssh_config takes double-quoted values. Paths stay absolute: ssh expands ~ from the password database, not $HOME. */
function quote(path: string): string {
  return /[\s"#]/.test(path) ? `"${path.replace(/"/g, '')}"` : path
}

export function renderSshConfig(c: SshConfigInput): string {
  const lines = [
    '# Written by Berth: one Host block per live session. Berth rewrites this file as sessions come',
    '# and go; edits here are lost. Use it from ~/.ssh/config with the Include line `berth ssh-config` prints.',
    '',
  ]
  for (const s of [...c.sessions].sort((a, b) => a.route.localeCompare(b.route))) {
    lines.push(`# session ${s.name} on ${s.server}`)
    lines.push(`Host ${hostAlias(s.route)}`)
    lines.push(`  HostName ${c.host}`)
    lines.push(`  Port ${c.port}`)
    lines.push(`  User ${s.route}`)
    lines.push(`  HostKeyAlias ${c.hostKeyAlias}`)
    lines.push(`  UserKnownHostsFile ${quote(c.knownHostsFile)}`)
    lines.push('  StrictHostKeyChecking yes')
    for (const f of c.identityFiles) lines.push(`  IdentityFile ${quote(f)}`)
    if (c.identityFiles.length) lines.push('  IdentitiesOnly yes')
    lines.push('')
  }
  return lines.join('\n')
}

export function includeLine(path: string): string {
  return `Include ${quote(path)}`
}

/** Writes durably (a reader, a crash or a power cut never sees half a file). Returns whether it changed. */
export function writeAtomically(path: string, text: string): boolean {
  try {
    if (existsSync(path) && readFileSync(path, 'utf8') === text) {
      ensurePrivateFile(path)
      return false
    }
  } catch {
    // unreadable: rewrite it
  }
  writeFileDurably(path, text)
  return true
}
