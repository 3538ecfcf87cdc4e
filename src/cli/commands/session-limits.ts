// Limits on the command line: --cpus N, --memory SIZE, --pids N (create and `session set`), and
// the image's main process's restart policy (create).
import { Limits, RestartPolicy, type Session } from '../../shared/models'
import { formatSize, parseSize } from '../../shared/sizes'
import { str, type OptionSpec, type Parsed } from '../command'
import { UsageError } from '../output'

export const LIMIT_OPTIONS: Record<string, OptionSpec> = {
  cpus: { type: 'string', value: 'N', help: 'cpus it may use, like 0.5 or 2 (default: the sessionCpus setting, else no limit)' },
  memory: { type: 'string', value: 'SIZE', help: 'memory it may use, like 512m or 2g; past it the kernel kills (default: the sessionMemory setting)' },
  pids: { type: 'string', value: 'N', help: 'processes it may run at once (default: the sessionPids setting)' },
}

export const RESTART_OPTION: OptionSpec = {
  type: 'string',
  value: 'POLICY',
  help: "when the image's own main process stops by itself: no, on-failure (default) or always",
  complete: RestartPolicy.options,
}

/** The limits named on the command line (none named: undefined). */
export function parseLimits(p: Parsed, usage: string): Limits | undefined {
  const out: Limits = {}
  const cpus = str(p, 'cpus')
  const memory = str(p, 'memory')
  const pids = str(p, 'pids')
  if (cpus !== undefined) {
    if (!/^\d+(\.\d+)?$/.test(cpus) || Number(cpus) <= 0) throw new UsageError(`not a number of cpus: ${cpus} (like 0.5 or 2)`, usage)
    out.cpus = Number(cpus)
  }
  if (memory !== undefined) {
    const bytes = parseSize(memory)
    if (bytes === undefined) throw new UsageError(`not a size: ${memory} (like 512m or 2g)`, usage)
    out.memoryBytes = bytes
  }
  if (pids !== undefined) {
    if (!/^\d+$/.test(pids)) throw new UsageError(`not a number of processes: ${pids}`, usage)
    out.pids = Number(pids)
  }
  const checked = Limits.safeParse(out)
  if (!checked.success) throw new UsageError(`limits out of range: ${checked.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')} (memory at least 6m, pids at least 16)`, usage)
  return Object.keys(out).length ? out : undefined
}

export function parseRestart(p: Parsed, usage: string): RestartPolicy | undefined {
  const v = str(p, 'restart')
  if (v === undefined) return undefined
  const r = RestartPolicy.safeParse(v)
  if (!r.success) throw new UsageError(`not a restart policy: ${v} (no, on-failure or always)`, usage)
  return r.data
}

export function limitsLine(l: Session['limits']): string | undefined {
  if (!l) return undefined
  const parts = [l.cpus ? `${l.cpus} cpus` : '', l.memoryBytes ? `memory ${formatSize(l.memoryBytes)}` : '', l.pids ? `${l.pids} processes` : ''].filter(Boolean)
  return parts.length ? parts.join(', ') : 'none'
}
