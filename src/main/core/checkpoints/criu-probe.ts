// Reads what the server script's memory probe (probe-memory in engines/server-script/sh/probe.sh) found: whether the
// server can pause with memory, how, how fast, and if not, why, in one sentence a user can act on.
import type { MemoryPause } from '../../../shared/models'
import type { CheckpointMethod } from './checkpoints'

/** How long the probe's test dump may take before it counts as hung (the probe answers within 12 s). */
export const PROBE_DUMP_LIMIT_S = 9
/** How long the probe's restore may take (probe.sh's PROBE_RESTORE_S): tried only after a dump worked. */
export const PROBE_RESTORE_S = 30
/** How long a caller that must answer soon (server add) waits for the probe; the probe goes on and its finding is kept. */
export const PROBE_ANSWER_MS = 12_000
/**
 * Past this the core stops waiting for a probe and records that the server did not answer it. The
 * server bounds the probe's own dump (PROBE_DUMP_LIMIT_S) and restore, so a CRIU that hangs answers
 * within about 12 s; this is for a server that stops answering at all, and is generous so a slow
 * machine's working CRIU is not recorded as broken.
 */
export const PROBE_NO_ANSWER_MS = 60_000

/** What Berth keeps of a probe (the servers table's memory_probe). */
export interface ProbeRecord extends MemoryPause {
  /** engine version, kernel, CRIU version and method: a change means the probe must run again */
  fingerprint: string
  /** the fixed cost of a dump (ms), beside the rate, for planning */
  overheadMs: number
  criu: { path: string; version: string; fault: string | null; uffd: boolean; dirtyTrack: boolean } | null
}

/** The fixed cost of one dump by each method, beside its rate (measured here: 0.5-0.7 s through ctr). */
const OVERHEAD_MS: Record<CheckpointMethod, number> = { fast: 600, docker: 1500 }

const METHOD_TEXT: Record<CheckpointMethod, string> = {
  fast: "CRIU through containerd's own client",
  docker: "Docker's checkpoint API",
}

/** The probe's "key value" lines, read into what a user is told. */
export function readProbe(server: string, method: CheckpointMethod, f: Map<string, string[]>): Omit<ProbeRecord, 'fingerprint' | 'probedAt'> {
  const one = (k: string) => f.get(k)?.[0]
  const criuLine = one('criu')
  const criuPath = criuLine && criuLine !== 'none' ? criuLine.split(' ')[0]! : ''
  const criuVersion = one('criu-version') ?? 'unknown'
  const fault = one('fault')
  const criu = criuPath
    ? { path: criuPath, version: criuVersion, fault: fault && fault !== 'none' ? fault : null, uffd: one('uffd') === 'yes', dirtyTrack: one('dirty-track') === 'yes' }
    : null
  const diagnose = new Map((f.get('diagnose') ?? []).map((l) => l.split(' ') as [string, string]))
  const none = (note: string) => ({ available: false, how: 'none' as const, note, dumpMiBps: null, overheadMs: 0, criu })
  const retest = `then run \`berth server test ${server}\``
  if (criuLine === 'none') return none(`CRIU is not installed on ${server} (Docker's runc finds no criu on its PATH): pauses there freeze instead; install criu, ${retest}`)
  const [dumpState = 'fail', ...dumpRest] = (one('dump') ?? 'fail the probe gave no answer').split(' ')
  if (dumpState === 'late') {
    if (diagnose.get('plain') === 'late' && diagnose.get('fault130') === 'ok') {
      return none(
        criu?.fault === '130'
          ? `CRIU hangs on ${server} even with CRIU_FAULT=130: pauses there freeze instead of keeping memory`
          : `CRIU hangs on ${server}: its hardware breakpoints never fire (as on some VMs), and Docker runs CRIU without CRIU_FAULT=130, which avoids them; set CRIU_FAULT=130 in the environment of Docker's service (systemctl edit docker, Environment=CRIU_FAULT=130) and restart it, ${retest}`,
      )
    }
    return none(`CRIU did not finish a test dump within ${PROBE_DUMP_LIMIT_S} s on ${server} (Berth ended it): pauses there freeze instead of keeping memory`)
  }
  if (dumpState !== 'ok') {
    const why = dumpRest.join(' ').trim() || 'no reason given'
    if (one('root') === 'no') return none(`Berth cannot act as root on ${server} (its helper container did not start), which memory pauses need: ${why}`)
    return none(`a test dump failed on ${server}: ${why}`)
  }
  const ms = Number(dumpRest[0]) || 0
  const bytes = Number(dumpRest[1]) || 0
  const [restoreState = 'fail', ...restoreRest] = (one('restore') ?? 'fail no answer').split(' ')
  if (restoreState !== 'ok') {
    const why = restoreState === 'late' ? `it did not finish within ${PROBE_RESTORE_S} s` : restoreRest.join(' ').trim() || 'no reason given'
    return none(`CRIU dumps on ${server} but Docker could not restore the test checkpoint (${why}): pauses there freeze instead of keeping memory`)
  }
  const mib = bytes / (1 << 20)
  const rootOnly = diagnose.get('other-user') === 'rlimit'
  const others = rootOnly
    ? `; but only for sessions whose processes all run as root: CRIU lacks the CAP_SYS_RESOURCE capability on ${server}, so it cannot save another user's processes (such a session pauses on disk)`
    : ''
  // a dump's fixed cost (starting runc and CRIU, freezing, the small images) is not its rate
  const overheadMs = OVERHEAD_MS[method]
  const work = Math.max(ms - overheadMs, ms / 4)
  const dumpMiBps = ms > 0 && mib > 0 ? Math.round(Math.min(2000, mib / (work / 1000)) * 10) / 10 : null
  return {
    available: true,
    how: method,
    note: `memory pauses work on ${server}: ${METHOD_TEXT[method]}${criu ? ` (CRIU ${criu.version})` : ''} dumped a ${Math.round(mib)} MiB test in ${ms} ms and Docker restored it${others}`,
    dumpMiBps,
    ...(rootOnly ? { rootOnly } : {}),
    overheadMs,
    criu,
  }
}

/** A pause measured a dump: the server's rate follows it (half the old figure, half the new). */
export function refineRate(record: ProbeRecord, ms: number, bytes: number): ProbeRecord {
  const mib = bytes / (1 << 20)
  const work = ms - record.overheadMs
  if (mib < 16 || work <= 0) return record
  const seen = mib / (work / 1000)
  const dumpMiBps = Math.round((record.dumpMiBps ? (record.dumpMiBps + seen) / 2 : seen) * 10) / 10
  return { ...record, dumpMiBps }
}

export function memoryPauseOf(r: ProbeRecord | MemoryPause): MemoryPause {
  return { available: r.available, how: r.how, note: r.note, probedAt: r.probedAt, dumpMiBps: r.dumpMiBps, ...(r.rootOnly ? { rootOnly: true } : {}) }
}
