// Which Docker engine is this machine's own, found the way the docker CLI finds it: DOCKER_HOST,
// else DOCKER_CONTEXT, else the currentContext of ~/.docker/config.json (its endpoint in
// ~/.docker/contexts/meta/<sha256 of the name>/meta.json), else the first well-known socket that
// exists (the system's, Docker Desktop, OrbStack, Colima, Rancher Desktop, rootless, Podman, Lima).
// An app started from a Dock or a launcher has no DOCKER_HOST, so the files are what it goes by.
import { createHash } from 'node:crypto'
import { readFileSync, statSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'

export type EngineSource = 'option' | 'DOCKER_HOST' | 'DOCKER_CONTEXT' | 'docker context' | 'well-known' | 'default'

export interface EngineChoice {
  /** the unix socket Berth talks to (null when the choice cannot be used: see problem) */
  socket: string | null
  source: EngineSource
  /** why this one, in words: "DOCKER_HOST is unix:///...", "OrbStack's socket" */
  why: string
  /** one sentence when the configured engine cannot be used (a broken context, a tcp:// host) */
  problem: string | null
  /** the well-known sockets looked at, when it came to that */
  lookedAt: string[]
}

export interface EngineLookup {
  env: NodeJS.ProcessEnv
  home: string
  platform: NodeJS.Platform
  uid: number
  isSocket(path: string): boolean
  readFile(path: string): string | undefined
}

export function realLookup(env: NodeJS.ProcessEnv = process.env): EngineLookup {
  return {
    env,
    home: env.HOME || homedir(),
    platform: process.platform,
    uid: process.getuid?.() ?? -1,
    isSocket: (p) => {
      try {
        return statSync(p).isSocket()
      } catch {
        return false
      }
    },
    readFile: (p) => {
      try {
        return readFileSync(p, 'utf8')
      } catch {
        return undefined
      }
    },
  }
}

const SYSTEM_SOCKET = '/var/run/docker.sock'

/** The well-known sockets, in the order they are tried, each with whose it is. */
export function wellKnownSockets(l: Pick<EngineLookup, 'env' | 'home' | 'platform' | 'uid'>): Array<{ path: string; whose: string }> {
  const h = l.home
  const runtime = l.env.XDG_RUNTIME_DIR || (l.uid >= 0 ? `/run/user/${l.uid}` : '')
  const colima = l.env.COLIMA_HOME || join(h, '.colima')
  const list: Array<{ path: string; whose: string }> = [
    { path: SYSTEM_SOCKET, whose: "the system's Docker socket" },
    { path: join(h, '.docker', 'run', 'docker.sock'), whose: "Docker Desktop's socket" },
    { path: join(h, '.docker', 'desktop', 'docker.sock'), whose: "Docker Desktop's socket" },
    { path: join(h, '.orbstack', 'run', 'docker.sock'), whose: "OrbStack's socket" },
    { path: join(colima, 'default', 'docker.sock'), whose: "Colima's socket" },
    { path: join(h, '.config', 'colima', 'default', 'docker.sock'), whose: "Colima's socket" },
    { path: join(h, '.rd', 'docker.sock'), whose: "Rancher Desktop's socket" },
  ]
  if (runtime) list.push({ path: join(runtime, 'docker.sock'), whose: "rootless Docker's socket" })
  if (runtime) list.push({ path: join(runtime, 'podman', 'podman.sock'), whose: "Podman's Docker-compatible socket" })
  list.push({ path: '/run/podman/podman.sock', whose: "Podman's Docker-compatible socket" })
  if (l.platform === 'darwin') {
    list.push({ path: join(h, '.local', 'share', 'containers', 'podman', 'machine', 'podman.sock'), whose: "Podman machine's socket" })
    list.push({ path: join(h, '.local', 'share', 'containers', 'podman', 'machine', 'qemu', 'podman.sock'), whose: "Podman machine's socket" })
  }
  list.push({ path: join(h, '.lima', 'docker', 'sock', 'docker.sock'), whose: "Lima's socket" })
  return list
}

/** A DOCKER_HOST-like address as a unix socket path, or the sentence saying why it is not one. */
function unixSocketOf(host: string, what: string): { socket: string } | { problem: string } {
  if (host.startsWith('unix://')) return { socket: host.slice('unix://'.length) }
  const scheme = /^([a-z]+):\/\//.exec(host)?.[1] ?? 'that'
  const hint =
    scheme === 'ssh'
      ? `; to use that machine, connect it as a server instead: berth server add NAME ${host}`
      : '; point it at a unix socket (unix:///path/docker.sock) or connect that machine as a server over ssh'
  return { problem: `${what} is ${host}, but Berth reaches this machine's engine only on a unix socket, not ${scheme}://${hint}` }
}

function tilde(path: string, home: string): string {
  return path.startsWith(home + '/') ? `~${path.slice(home.length)}` : path
}

/** The docker CLI's context store: the endpoint a context names, or why it cannot be read. */
function contextEndpoint(l: EngineLookup, configDir: string, name: string, origin: string): { host: string } | { problem: string } {
  const hash = createHash('sha256').update(name).digest('hex')
  const meta = join(configDir, 'contexts', 'meta', hash, 'meta.json')
  const shown = tilde(meta, l.home)
  const text = l.readFile(meta)
  if (text === undefined) return { problem: `the docker context "${name}" (${origin}) does not exist: there is no ${shown}; see docker context ls` }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    return { problem: `the docker context "${name}" (${origin}) cannot be read: ${shown} is not valid JSON (${(e as Error).message})` }
  }
  const host = (parsed as { Endpoints?: { docker?: { Host?: unknown } } } | null)?.Endpoints?.docker?.Host
  if (typeof host !== 'string' || !host) return { problem: `the docker context "${name}" (${origin}) names no Docker endpoint in ${shown}` }
  return { host }
}

export function resolveDockerEngine(l: EngineLookup = realLookup()): EngineChoice {
  const configDir = l.env.DOCKER_CONFIG || join(l.home, '.docker')
  const found = (source: EngineSource, why: string, r: { socket: string } | { problem: string }): EngineChoice =>
    'socket' in r ? { socket: r.socket, source, why, problem: null, lookedAt: [] } : { socket: null, source, why, problem: r.problem, lookedAt: [] }

  const dockerHost = l.env.DOCKER_HOST
  if (dockerHost) return found('DOCKER_HOST', `DOCKER_HOST is ${dockerHost}`, unixSocketOf(dockerHost, 'DOCKER_HOST'))

  let context: { name: string; origin: string; source: EngineSource } | undefined
  if (l.env.DOCKER_CONTEXT) context = { name: l.env.DOCKER_CONTEXT, origin: 'DOCKER_CONTEXT', source: 'DOCKER_CONTEXT' }
  else {
    const configFile = join(configDir, 'config.json')
    const text = l.readFile(configFile)
    if (text !== undefined) {
      let config: { currentContext?: unknown } | null
      try {
        config = JSON.parse(text) as { currentContext?: unknown } | null
      } catch (e) {
        const where = tilde(configFile, l.home)
        return found('docker context', `the docker CLI's ${where}`, { problem: `${where} is not valid JSON (${(e as Error).message}); fix it, or set DOCKER_HOST` })
      }
      const current = config?.currentContext
      if (typeof current === 'string' && current) context = { name: current, origin: `currentContext in ${tilde(configFile, l.home)}`, source: 'docker context' }
    }
  }
  // "default" is the docker CLI's name for "no context": DOCKER_HOST or the defaults
  if (context && context.name !== 'default') {
    const why = `the docker context "${context.name}" (${context.origin})`
    const endpoint = contextEndpoint(l, configDir, context.name, context.origin)
    if ('problem' in endpoint) return found(context.source, why, endpoint)
    return found(context.source, `${why}: ${endpoint.host}`, unixSocketOf(endpoint.host, why))
  }

  const candidates = wellKnownSockets(l)
  const existing = candidates.find((c) => l.isSocket(c.path))
  const lookedAt = candidates.map((c) => tilde(c.path, l.home))
  if (existing) return { socket: existing.path, source: 'well-known', why: `${existing.whose} (no DOCKER_HOST nor docker context set)`, problem: null, lookedAt }
  return {
    socket: SYSTEM_SOCKET,
    source: 'default',
    why: 'the default socket: no DOCKER_HOST, no docker context, and none of the well-known sockets exists',
    problem: null,
    lookedAt,
  }
}

/** The choice for a socket a host passed in itself (tests, embedders). */
export function chosenSocket(socket: string): EngineChoice {
  return { socket, source: 'option', why: `the socket Berth was started with (${socket})`, problem: null, lookedAt: [] }
}
