// The server script's freeze-all (sh/freeze.sh): stage one of a lid-close pause for every session of
// one server at once. Its arguments are built and its answer read here, in one typed place.

/** One container of the batch: what its pause keeps, and the facts the script needs (containerFacts: CID PID UPPER VOLUME...). */
export interface FreezeMember {
  facts: string[]
  mode: 'memory' | 'frozen'
}

export type FreezeAnswer = { frozen: true; execsEnded: number } | { frozen: false; reason: string }

/** The command line of one freeze-all: `limit` bounds each of its waits on the server. */
export function freezeAllArgs(members: FreezeMember[], limitMs: number): string[] {
  const args = ['freeze-all', `limit=${Math.max(1, Math.round(limitMs))}`]
  for (const m of members) {
    const [cid, pid, ...paths] = m.facts
    if (!cid || !pid) continue
    args.push('--', cid, pid, m.mode, ...paths)
  }
  return args
}

/**
 * What freeze-all said of each container asked for ("frozen CID", "failed CID WHY", "ended CID N").
 * A container it did not name is not frozen: the answer was cut short.
 */
export function parseFreezeAll(stdout: string, containerIds: string[]): Map<string, FreezeAnswer> {
  const frozen = new Set<string>()
  const failed = new Map<string, string>()
  const ended = new Map<string, number>()
  for (const line of stdout.split('\n')) {
    const m = /^(frozen|failed|ended) ([0-9a-f]+)(?: (.*))?$/.exec(line.trim())
    if (!m) continue
    const [, kind, cid, rest] = m as unknown as [string, string, string, string | undefined]
    if (kind === 'frozen') frozen.add(cid)
    else if (kind === 'failed') failed.set(cid, rest?.trim() || 'docker pause did not pause it')
    else if (/^\d+$/.test(rest ?? '')) ended.set(cid, Number(rest))
  }
  const out = new Map<string, FreezeAnswer>()
  for (const id of containerIds) {
    if (frozen.has(id) && !failed.has(id)) out.set(id, { frozen: true, execsEnded: ended.get(id) ?? 0 })
    else out.set(id, { frozen: false, reason: failed.get(id) ?? 'the server did not say it was frozen' })
  }
  return out
}
