// What a session keeps of its shape beyond its image: the image's own main process (kept running
// under Berth's supervisor) with its restart policy, and its limits. Stored in the session's
// options, so every remake of its container (resume from disk, restart, move, fork) has the same.
import type Dockerode from 'dockerode'
import { z } from 'zod'
import { Limits, RestartPolicy } from '../../../shared/models'
import type { Settings } from '../../../shared/settings'
import { parseSize } from '../../../shared/sizes'
import supervise from './supervise.sh'

export const MainSpec = z.object({
  /** the image's ENTRYPOINT followed by its CMD */
  argv: z.array(z.string()).min(1),
  workdir: z.string(),
  restart: RestartPolicy,
})
export type MainSpec = z.infer<typeof MainSpec>

/** A command the session runs on every start of its container (a devcontainer's postStartCommand). */
export const StartCommand = z.object({ name: z.string().optional(), argv: z.array(z.string()).min(1) })
export type StartCommand = z.infer<typeof StartCommand>

/**
 * What a session made from a devcontainer.json keeps for its whole life (moves and forks too): the
 * user and environment of its terminals, commands and ssh, its forwarded ports, what runs on every
 * start, and its named volumes.
 */
export const DevShape = z.object({
  user: z.string().optional(),
  remoteEnv: z.record(z.string(), z.string()).default({}),
  ports: z.array(z.number().int().min(1).max(65535)).default([]),
  postStart: z.array(StartCommand).default([]),
  volumes: z.array(z.object({ source: z.string(), target: z.string() })).default([]),
})
export type DevShape = z.infer<typeof DevShape>

export interface SessionShape {
  main: MainSpec | null
  limits: Limits
  dev?: DevShape | null | undefined
}

/** The shape kept in a session's (or a snapshot's) options; anything unreadable counts as absent. */
export function shapeOf(options: Record<string, unknown> | undefined): SessionShape {
  const main = MainSpec.safeParse(options?.main)
  const limits = Limits.safeParse(options?.limits ?? {})
  const dev = options?.dev === undefined ? null : DevShape.safeParse(options.dev)
  return { main: main.success ? main.data : null, limits: limits.success ? limits.data : {}, ...(dev?.success ? { dev: dev.data } : {}) }
}

/** The options that carry a shape (what a snapshot keeps to make a session like it again). */
export const shapeOptions = (s: SessionShape): Record<string, unknown> => ({ ...(s.main ? { main: s.main } : {}), limits: s.limits, ...(s.dev ? { dev: s.dev } : {}) })

/** Who runs a session's terminals, commands and ssh, and with what environment (absent: the image's user). */
export function remoteOf(row: { options?: Record<string, unknown> }): { user?: string; env: Record<string, string> } {
  const dev = shapeOf(row.options).dev
  return { ...(dev?.user ? { user: dev.user } : {}), env: dev?.remoteEnv ?? {} }
}

// A base image's CMD is usually a bare shell: without a terminal it ends at once and is no service.
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh', 'fish'])

/** The image's own main process, or null when it has none worth keeping (Berth's keep-alive then). */
export function mainOf(config: { Entrypoint?: string[] | string | null; Cmd?: string[] | string | null; WorkingDir?: string } | undefined, restart: RestartPolicy): MainSpec | null {
  const list = (v: string[] | string | null | undefined): string[] => (v == null ? [] : Array.isArray(v) ? v : ['/bin/sh', '-c', v])
  const entrypoint = list(config?.Entrypoint)
  const cmd = list(config?.Cmd)
  const argv = [...entrypoint, ...cmd]
  if (!argv.length) return null
  if (!entrypoint.length && cmd.length === 1 && SHELLS.has(cmd[0]!.split('/').pop()!)) return null
  return { argv, workdir: config?.WorkingDir || '/', restart }
}

// without its comments: the whole script is PID 1's command line, which `ps` shows in the session
const SUPERVISOR = supervise
  .split('\n')
  .filter((l) => l.trim() !== '' && !/^\s*#/.test(l))
  .join('\n')

/** PID 1 of a session with a main process: the supervisor, handed the policy, the folder and the command. */
export const supervisorEntrypoint = (m: MainSpec): string[] => ['/bin/sh', '-c', SUPERVISOR, 'berth-main', m.restart, m.workdir, '--', ...m.argv]

/** The engine's form of the limits, for create and for update. Memory has no swap beside it. */
export function limitsConfig(l: Limits): Pick<Dockerode.HostConfig, 'NanoCpus' | 'Memory' | 'MemorySwap' | 'PidsLimit'> {
  const c: Pick<Dockerode.HostConfig, 'NanoCpus' | 'Memory' | 'MemorySwap' | 'PidsLimit'> = {}
  if (l.cpus) c.NanoCpus = Math.round(l.cpus * 1e9)
  if (l.memoryBytes) {
    c.Memory = l.memoryBytes
    c.MemorySwap = l.memoryBytes
  }
  if (l.pids) c.PidsLimit = l.pids
  return c
}

/** A new session's limits: the settings' defaults, each replaced by what the create gave. */
export function limitsWithDefaults(settings: Pick<Settings, 'sessionCpus' | 'sessionMemory' | 'sessionPids'>, given: Limits | undefined): Limits {
  const memory = settings.sessionMemory ? parseSize(settings.sessionMemory) : undefined
  return {
    ...(settings.sessionCpus ? { cpus: settings.sessionCpus } : {}),
    ...(memory ? { memoryBytes: memory } : {}),
    ...(settings.sessionPids ? { pids: settings.sessionPids } : {}),
    ...given,
  }
}
