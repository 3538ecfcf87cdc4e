// The checkpoint primitive: a container's memory on its server's disk, in Docker's own layout, so
// `docker start --checkpoint NAME` restores it. Pause uses it (as part of its server-side job, see
// server-script.ts); move, fork and rewind use it through this API.
//
//   support(server)                 can this server checkpoint, and by which method ('fast': CRIU
//                                   through containerd's own client, images written straight to
//                                   disk; 'docker': Docker's checkpoint API), or why not
//   create(server, container, name) dump the container's memory and stop it; verified (Docker's
//                                   "already exists" error is never trusted alone), fsync'd
//   verify(server, container, name) the checkpoint's location if it is complete, else null
//   locate(server, container, name) where its files are: `paths` (folders) and their `bytes`;
//                                   dataRoot/containers/<id>/checkpoints/<name> always, plus
//                                   dataRoot/containers/<id>/berth/pages-<name> for the 'split'
//                                   layout (the memory pages, linked from the checkpoint folder)
//   restore(server, container, name) docker start --checkpoint, then checks the container really
//                                   runs (restored: 'memory'); a failed restore falls back to a
//                                   cold boot from disk and says so (restored: 'disk', fallback)
//   remove(server, container, name) deletes the checkpoint's folders
//
// To carry a checkpoint to another server (issue 4): locate it on the source, create the target
// container, copy every path of `paths` to the same place under the target's
// <dataRoot>/containers/<target id>/ (keeping relative symlinks of the split layout pointing at the
// target's own pages folder: or copy with `layout: 'docker'`, the pages put back in the folder),
// then restore on the target.
import { BerthError } from '../../../shared/errors'
import type { EngineRegistry } from '../engines/engine-registry'
import { holdExecs } from '../engines/exec-gate'
import type { MemoryPause } from '../../../shared/models'
import { within } from '../deadline'
import { memoryPauseOf, PROBE_DUMP_LIMIT_S, PROBE_NO_ANSWER_MS, readProbe, refineRate, type ProbeRecord } from './criu-probe'
import { runnerFor, type JobOutcome, type ServerRunner } from '../engines/server-script/server-runner'

export type CheckpointMethod = 'fast' | 'docker'
/** What a server's `checkpoint` option says: off, a forced method, or (absent) the best one found. */
export type CheckpointSetting = 'auto' | 'off' | CheckpointMethod

export interface CheckpointSupport {
  memory: boolean
  method: CheckpointMethod | null
  /** why memory checkpoints are not available, or why the slower method is used */
  reason: string | null
}

export interface CheckpointLocation {
  server: string
  containerId: string
  name: string
  dataRoot: string
  layout: 'split' | 'docker'
  paths: string[]
  bytes: number
}

export interface RestoreOutcome {
  restored: 'memory' | 'disk'
  fallback: string | null
}

export function checkpointSetting(options: Record<string, unknown>): CheckpointSetting {
  const v = options.checkpoint
  if (v === false || v === 'off') return 'off'
  if (v === 'fast' || v === 'docker') return v
  return 'auto'
}

/** Where what a probe found is kept (the servers table), so a restart does not probe again. */
export interface ProbeStore {
  load(server: string): ProbeRecord | null
  save(server: string, record: ProbeRecord): void
}

const probing = (server: string): MemoryPause => ({
  available: false,
  how: 'none',
  note: `Berth is still testing whether ${server} can pause with memory`,
  probedAt: null,
  dumpMiBps: null,
})

export class Checkpoints {
  private readonly probes = new Map<string, Promise<{ root: boolean; ctr: boolean }>>()
  /** the test under way per server, and whether it is a fresh one (a fresh request never joins a stale one) */
  private readonly memoryProbes = new Map<string, { p: Promise<ProbeRecord>; fresh: boolean }>()
  /** Told when a server's memory-pause ability changed (the Servers screen follows it). */
  onAbility: (server: string) => void = () => undefined

  constructor(
    private readonly engines: EngineRegistry,
    private readonly homeId: string,
    private readonly store: ProbeStore,
  ) {}

  /** The server script's runner for a server (one per engine, so the script is installed once). */
  runner(server: string): ServerRunner {
    return runnerFor(this.engines.get(server), this.homeId)
  }

  /** Forgets what was learnt about a server (its options changed, or it was re-added). */
  invalidate(server: string): void {
    this.probes.delete(server)
  }

  private probe(server: string): Promise<{ root: boolean; ctr: boolean }> {
    let p = this.probes.get(server)
    if (!p) {
      p = this.runner(server)
        .fields(['probe'], 'probing checkpoint support')
        .then((f) => ({ root: f.get('root')?.[0] === 'yes', ctr: f.get('ctr')?.[0] === 'yes' }))
      p.catch(() => this.probes.delete(server))
      this.probes.set(server, p)
    }
    return p
  }

  /** Why a server cannot checkpoint whatever its CRIU does, or the method it would use. */
  private async method(server: string): Promise<{ method: CheckpointMethod } | { none: string }> {
    const setting = checkpointSetting(this.engines.row(server).options)
    if (setting === 'off') return { none: `memory checkpoints are turned off for server ${server} (\`berth server checkpoint ${server} auto\` turns them on)` }
    const facts = await this.engines.get(server).facts()
    if (!facts.experimental) {
      return { none: `the Docker engine on ${server} does not run in experimental mode, which checkpoints need (start dockerd with --experimental)` }
    }
    if (facts.os && /docker desktop/i.test(facts.os)) return { none: `Docker Desktop on ${server} cannot checkpoint containers (no CRIU)` }
    if (setting === 'docker') return { method: 'docker' }
    const probe = await this.probe(server).catch(() => ({ root: false, ctr: false }))
    return { method: probe.root && probe.ctr ? 'fast' : 'docker' }
  }

  /**
   * Whether the server can pause with memory. `fresh` tests again; otherwise a test whose engine,
   * kernel and CRIU are unchanged still holds (`quick`: the last one found holds, unchecked, for the
   * lid-close path). `waitMs` bounds the wait for a test under way (it goes on in the background).
   */
  async ability(server: string, opts: { fresh?: boolean; quick?: boolean; waitMs?: number } = {}): Promise<MemoryPause> {
    if (opts.quick) {
      const kept = this.store.load(server)
      if (kept && kept.fingerprint.endsWith(`|${checkpointSetting(this.engines.row(server).options)}`)) return memoryPauseOf(kept)
    }
    const m = await this.method(server)
    if ('none' in m) return { available: false, how: 'none', note: m.none, probedAt: null, dumpMiBps: null }
    let entry = this.memoryProbes.get(server)
    if (!entry || (opts.fresh && !entry.fresh)) {
      const before = entry?.p.catch(() => undefined)
      const p = (before ?? Promise.resolve()).then(() => this.runProbe(server, m.method, !!opts.fresh))
      const mine = { p, fresh: !!opts.fresh }
      entry = mine
      this.memoryProbes.set(server, mine)
      void p.finally(() => this.memoryProbes.get(server) === mine && this.memoryProbes.delete(server)).catch(() => undefined)
    }
    const answer = entry.p.then(memoryPauseOf)
    if (opts.waitMs === undefined) return await answer
    return await within(answer, opts.waitMs, () => probing(server))
  }

  private async runProbe(server: string, method: CheckpointMethod, fresh: boolean): Promise<ProbeRecord> {
    const engine = this.engines.get(server)
    const facts = await engine.facts()
    const criu = (await this.runner(server).fields(['criu-version'], 'finding CRIU')).get('criu')?.[0] ?? 'none'
    const fingerprint = `${facts.version}|${facts.kernel}|${criu}|${method}|${checkpointSetting(this.engines.row(server).options)}`
    const kept = this.store.load(server)
    if (!fresh && kept?.fingerprint === fingerprint) return kept
    const f = await within(
      this.runner(server).fields(['probe-memory', method, String(PROBE_DUMP_LIMIT_S)], 'the memory-pause test'),
      PROBE_NO_ANSWER_MS,
      () => new Map([['dump', [`fail ${server} did not answer the memory-pause test within ${PROBE_NO_ANSWER_MS / 1000} s`]]]),
    )
    const found = readProbe(server, method, f)
    // a rate learnt from real pauses outlives a new test of the same machine
    const dumpMiBps = found.available && kept?.available && kept.dumpMiBps && kept.fingerprint === fingerprint ? kept.dumpMiBps : found.dumpMiBps
    const record: ProbeRecord = { ...found, dumpMiBps, fingerprint, probedAt: new Date().toISOString() }
    this.store.save(server, record)
    if (kept?.available !== record.available || kept?.note !== record.note) this.onAbility(server)
    return record
  }

  /** What the last test found, without testing (null before the first). */
  known(server: string): ProbeRecord | null {
    return this.store.load(server)
  }

  /** A pause measured its dump: the server's rate follows it. */
  recordDump(server: string, ms: number, bytes: number): void {
    const kept = this.store.load(server)
    if (kept?.available) this.store.save(server, refineRate(kept, ms, bytes))
  }

  async support(server: string, opts: { quick?: boolean; waitMs?: number } = {}): Promise<CheckpointSupport> {
    const a = await this.ability(server, opts)
    if (!a.available) return { memory: false, method: null, reason: a.note }
    const method = a.how === 'none' ? 'docker' : a.how
    return { memory: true, method, reason: method === 'docker' ? `using Docker's slower checkpoint path on ${server}` : null }
  }

  async create(server: string, containerId: string, name: string, method?: CheckpointMethod): Promise<CheckpointLocation> {
    const support = await this.support(server)
    if (!support.memory) throw new BerthError('refused', support.reason ?? `server ${server} cannot checkpoint`)
    const release = await holdExecs(containerId, `the session is being checkpointed on ${server}; run it again in a moment`)
    try {
      await this.runner(server).fields(['checkpoint-create', containerId, name, method ?? support.method ?? 'docker'], 'the checkpoint')
    } finally {
      release()
    }
    return await this.locate(server, containerId, name)
  }

  async verify(server: string, containerId: string, name: string): Promise<CheckpointLocation | null> {
    const r = await this.runner(server).run(['checkpoint-info', containerId, name])
    if (r.code !== 0) return null
    return parseLocation(server, name, r.stdout)
  }

  async locate(server: string, containerId: string, name: string): Promise<CheckpointLocation> {
    const loc = await this.verify(server, containerId, name)
    if (!loc) throw new BerthError('not_found', `checkpoint not found: ${name} of container ${containerId.slice(0, 12)} on ${server}`)
    return loc
  }

  async restore(server: string, containerId: string, name: string): Promise<RestoreOutcome> {
    const job = `restore-${containerId.slice(0, 12)}-${name}-${Date.now().toString(36)}`
    const o = await this.runner(server).start(job, ['resume', containerId, 'memory', name], () => undefined)
    return restoreOutcome(server, o)
  }

  async remove(server: string, containerId: string, name: string): Promise<boolean> {
    const f = await this.runner(server).fields(['checkpoint-remove', containerId, name], 'removing the checkpoint')
    return f.get('removed')?.[0] === '1'
  }
}

export function restoreOutcome(server: string, o: JobOutcome): RestoreOutcome {
  if (!o.followed) throw new BerthError('unreachable', `lost the connection to ${server} during the restore: ${o.reason ?? ''}`)
  if (o.rc !== 0 || !o.result) throw new BerthError('checkpoint', `the restore failed on ${server}: ${o.error ?? o.gone ?? `exit ${o.rc}`}`)
  const mode = o.result.mode
  const fallback = typeof o.result.fallback === 'string' && o.result.fallback ? o.result.fallback : null
  return { restored: mode === 'memory' ? 'memory' : 'disk', fallback }
}

function parseLocation(server: string, name: string, out: string): CheckpointLocation | null {
  const loc: CheckpointLocation = { server, containerId: '', name, dataRoot: '', layout: 'docker', paths: [], bytes: 0 }
  for (const line of out.split('\n')) {
    const sp = line.indexOf(' ')
    const k = line.slice(0, sp)
    const v = line.slice(sp + 1)
    if (k === 'container') loc.containerId = v
    else if (k === 'root') loc.dataRoot = v
    else if (k === 'layout') loc.layout = v === 'split' ? 'split' : 'docker'
    else if (k === 'path') loc.paths.push(v)
    else if (k === 'bytes') loc.bytes = Number(v) || 0
  }
  return loc.paths.length ? loc : null
}
