// A server address as ssh itself takes it: ssh://USER@HOST:PORT, or a destination ([USER@]NAME)
// that the user's ~/.ssh/config may describe (HostName, User, Port, IdentityFile, ProxyJump,
// HostKeyAlias), read with the ssh-config parser. Include lines are followed (as ssh does, relative
// to ~/.ssh). `Match exec` is not run: this is resolved in the daemon on every connect, where a
// command that hangs or prompts would hold the connection up.
import { readdirSync, readFileSync, existsSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { basename, dirname, isAbsolute, join } from 'node:path'
import SSHConfig, { glob } from 'ssh-config'
import { BerthError } from '../../../shared/errors'
import { parseSshUrl } from './ssh-url'

export interface SshEndpoint {
  host: string
  port: number
  user: string
  /** private key files to offer, in order (only those that exist) */
  identities: string[]
  /** the hosts to go through first, outermost first (ProxyJump) */
  jumps: SshEndpoint[]
  /** the name its host key is recorded under in known_hosts (HostKeyAlias), when not the host */
  hostKeyAlias: string | null
  /** the ~/.ssh/config Host this came from, if any */
  alias: string | null
}

export interface SshConfigSource {
  home: string
  localUser: string
  /** the user's config text with its Includes spliced in ('' when there is none) */
  text(): string
}

const MAX_INCLUDE_DEPTH = 8
const MAX_JUMPS = 8
const DEFAULT_IDENTITIES = ['id_rsa', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519', 'id_ed25519_sk']

/** ~/.ssh/config, with every Include spliced in where it stands. */
export function userSshConfig(home = homedir(), localUser = safeUser()): SshConfigSource {
  const sshDir = join(home, '.ssh')
  const read = (file: string, depth: number): string => {
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      return ''
    }
    if (depth >= MAX_INCLUDE_DEPTH) return text
    return text.replace(/^[ \t]*include[ \t=]+(.+)$/gim, (_line, spec: string) =>
      spec
        .trim()
        .split(/\s+/)
        .flatMap((pattern) => includedFiles(pattern.replace(/^"|"$/g, ''), home, sshDir))
        .map((f) => read(f, depth + 1))
        .join('\n'),
    )
  }
  return { home, localUser, text: () => read(join(sshDir, 'config'), 0) }
}

function includedFiles(pattern: string, home: string, sshDir: string): string[] {
  const p = pattern.startsWith('~/') ? join(home, pattern.slice(2)) : isAbsolute(pattern) ? pattern : join(sshDir, pattern)
  if (!/[*?]/.test(basename(p))) return existsSync(p) ? [p] : []
  try {
    return readdirSync(dirname(p))
      .filter((name) => glob(basename(p), name))
      .sort()
      .map((name) => join(dirname(p), name))
  } catch {
    return []
  }
}

function safeUser(): string {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? 'root'
  }
}

/** Splits "[user@]host[:port]" (a ProxyJump hop or a destination); "[v6]:port" too. */
function splitDestination(spec: string): { user?: string; host: string; port?: number } {
  const at = spec.lastIndexOf('@')
  const user = at > 0 ? spec.slice(0, at) : undefined
  const rest = at > 0 ? spec.slice(at + 1) : spec
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(rest) ?? /^([^:]+)(?::(\d+))?$/.exec(rest)
  if (!m) throw new BerthError('usage', `not an ssh destination: ${spec}`)
  return { user, host: m[1]!, port: m[2] ? Number(m[2]) : undefined }
}

const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)
const all = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v])

function expand(path: string, src: SshConfigSource, e: { host: string; user: string; port: number }): string {
  const tokens: Record<string, string> = { '%': '%', d: src.home, u: src.localUser, h: e.host, r: e.user, p: String(e.port) }
  const p = path.replace(/%([%duhrp])/g, (_m, t: string) => tokens[t]!)
  return p.startsWith('~/') ? join(src.home, p.slice(2)) : p
}

/** A destination ([user@]name[:port]) through the user's ssh config, as ssh would reach it. */
export function resolveDestination(spec: string, src: SshConfigSource, seen: string[] = []): SshEndpoint {
  const d = splitDestination(spec)
  if (seen.includes(d.host) || seen.length > MAX_JUMPS) throw new BerthError('usage', `ProxyJump in ~/.ssh/config goes round in a circle: ${[...seen, d.host].join(' -> ')}`)
  const c = SSHConfig.parse(src.text()).compute(d.host, { ignoreCase: true, matchExec: false })
  const host = first(c.hostname) ?? d.host
  const port = d.port ?? Number(first(c.port) ?? 22)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BerthError('usage', `not a port in ~/.ssh/config for ${d.host}: ${first(c.port)}`)
  const user = d.user ?? first(c.user) ?? src.localUser
  const e = { host: host.replace(/%h/g, d.host), user, port }
  // as ssh: the config's IdentityFile lines, else its default key files
  const named = all(c.identityfile)
  const identities = (named.length ? named : DEFAULT_IDENTITIES.map((f) => `~/.ssh/${f}`))
    .map((f) => expand(f, src, e))
    .filter((f) => existsSync(f))
  const jumpSpec = first(c.proxyjump)
  const jumps = !jumpSpec || jumpSpec === 'none' ? [] : jumpSpec.split(',').map((j) => resolveDestination(j.trim(), src, [...seen, d.host]))
  // a jump's own jumps come first: the chain is flattened, outermost hop first
  const chain = jumps.flatMap((j) => [...j.jumps, { ...j, jumps: [] }])
  const isAlias = c.host !== undefined && c.host !== '*' && glob(String(first(c.host)), d.host)
  return { ...e, identities, jumps: chain, hostKeyAlias: first(c.hostkeyalias) ?? null, alias: isAlias ? d.host : null }
}

/** A server address: ssh://USER@HOST:PORT as it is, or a destination through ~/.ssh/config. */
export function resolveServerAddress(address: string, src: SshConfigSource = userSshConfig()): SshEndpoint {
  if (address.startsWith('ssh://')) {
    const t = parseSshUrl(address)
    return { ...t, identities: [], jumps: [], hostKeyAlias: null, alias: null }
  }
  return resolveDestination(address, src)
}

/** The address Berth shows and keys its known hosts by: ssh://USER@HOST:PORT. */
export const urlOf = (e: Pick<SshEndpoint, 'user' | 'host' | 'port'>) => `ssh://${e.user}@${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`
