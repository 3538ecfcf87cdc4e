// `resume --on SERVER` when the session's server does not answer within 3 s: the session comes back
// from its replica on SERVER (with its memory when the replica holds its latest pause, else from its
// files) and keeps its id, route, ssh line and preview address. What the replica did not have is
// said in one sentence. The old server's copy is recorded as stale under the old generation: when
// that server answers again the copy is kept stopped and listed for clean-up, never resumed.
import type { z } from 'zod'
import type { ResumeOnResult } from '../../../shared/contract/replicas'
import { BerthError, oneSentence, reasonOf } from '../../../shared/errors'
import { ProgressReporter } from '../progress'
import { nowIso } from '../store/database'
import type { ReplicaRow, ReplicasRepo } from '../store/replicas-repo'
import type { SessionRow } from '../store/sessions-repo'
import { move } from '../snapshots/move'
import type { SnapshotService } from '../snapshots/snapshot-service'
import type { Transfer } from '../snapshots/transfer'
import { answers, ANSWER_MS, type Replicator } from './replicator'
import type { LastSeen } from './last-seen'

type Result = z.infer<typeof ResumeOnResult>

export interface FailoverDeps {
  svc: SnapshotService
  transfer: Transfer
  repo: ReplicasRepo
  replicator: Replicator
  seen: LastSeen
}

export async function resumeOn(d: FailoverDeps, args: { id: string; to: string; op?: string | undefined }): Promise<Result> {
  const ctx = d.svc.ctx
  const row = ctx.sessions.resolve(args.id)
  ctx.engines.row(args.to)
  const rep = d.repo.get(row.id, args.to)
  const plainMove = async () => ({ ...(await move(d.svc, d.transfer, { id: row.id, to: args.to, resume: true, op: args.op })), fromReplica: false, lost: null })
  // a session without a replica there is a plain move, which says itself when the source is gone
  if (!rep || rep.status === 'stale' || row.server === args.to) return await plainMove()
  const t0 = performance.now()
  if (await answers(ctx.engines.get(row.server))) {
    d.seen.saw(row.server)
    return await plainMove()
  }
  if (rep.status !== 'current' || !rep.containerId || rep.generation !== d.repo.generation(row.id)) {
    // the copy there was being replaced when the source went: it is not whole
    throw new BerthError('unreachable', `${row.server} did not answer within ${ANSWER_MS / 1000} s, and ${row.name}'s replica on ${args.to} is not usable: it was being brought up to date${rep.failure ? ` (${rep.failure})` : ''}`)
  }
  return await d.svc.locks.run(row.id, () => failover(d, row.id, rep, args, t0))
}

async function failover(d: FailoverDeps, id: string, rep: ReplicaRow, args: { to: string; op?: string | undefined }, t0: number): Promise<Result> {
  const ctx = d.svc.ctx
  const row = ctx.sessionsRepo.get(id)!
  const from = row.server
  if (!['running', 'paused', 'failed'].includes(row.state)) throw new BerthError('conflict', `session ${row.name} is ${row.state}; try again in a moment`, { state: row.state })
  const progress = new ProgressReporter((p) => ctx.bus.emit('progress', p), { op: args.op, sessionId: row.id, server: args.to })
  const stoppedAt = d.seen.last(from) ?? nowIso()
  const silent = `${from} did not answer within ${ANSWER_MS / 1000} s`
  const latestPause = ctx.memory.pause.latestPause(row.id)
  // memory only when the replica holds the very pause the session is still in
  const memoryLatest = rep.kind === 'memory' && row.state === 'paused' && rep.pauseSeq !== null && latestPause?.seq === rep.pauseSeq
  const target = ctx.engines.get(args.to)
  await target.ready()
  const containerId = rep.containerId!
  let cur: SessionRow = row
  if (row.state === 'running') {
    cur = ctx.lifecycle.transition(row.id, { from: ['running'], to: 'failed', verb: 'failover', patch: { failure: `${silent}; resuming it from its replica on ${args.to}` } })
  }
  ctx.lifecycle.transition(row.id, { from: ['paused', 'failed'], to: 'resuming', verb: 'failover', detail: { from, to: args.to, replicaAt: rep.at, kind: rep.kind } })
  let memory = false
  let note: string | null = null
  try {
    progress.stage('restore', memoryLatest ? `restoring ${row.name}'s memory from its replica on ${args.to}` : `starting ${row.name} from its replica on ${args.to}`)
    for (const hook of ctx.sessions.beforeStart) await hook({ ...cur, containerId }, target, containerId)
    if (memoryLatest && rep.checkpoint) {
      const r = await ctx.memory.restore(args.to, containerId, rep.checkpoint)
      memory = r.memory
      note = r.note
    } else {
      await target.docker.getContainer(containerId).start()
    }
    const runs = await target.docker.getContainer(containerId).inspect()
    if (!runs.State.Running) throw new BerthError('internal', `the replica's container did not start on ${args.to} (${runs.State.Status})`)
    await ctx.sessions.runAfterStart({ ...cur, containerId, server: args.to }, target, containerId)
  } catch (e) {
    await target.docker.getContainer(containerId).stop({ t: 0 }).catch(() => undefined)
    const reason = reasonOf(e)
    ctx.lifecycle.transition(row.id, { from: ['resuming'], to: 'failed', verb: 'failover', patch: { failure: `${silent}, and its replica on ${args.to} did not start: ${reason}` } })
    throw new BerthError('internal', `could not resume ${row.name} from its replica on ${args.to}: ${reason}`)
  }
  const lost = lostSentence(rep, row, { memory, note, memoryLatest, latestSeq: latestPause?.seq ?? null, stoppedAt, from })
  // the switch: a new generation; the old server's copy is stale from here on
  const generation = d.repo.bumpGeneration(row.id)
  const final = ctx.lifecycle.transition(row.id, {
    from: ['resuming'],
    to: 'running',
    verb: 'failover',
    patch: { server: args.to, containerId, mode: null, pausedBy: null, durable: false, failure: null },
    detail: { from, to: args.to, generation, restored: memory ? 'memory' : 'disk', lost },
  })
  d.repo.remove(row.id, args.to)
  d.repo.put({
    sessionId: row.id,
    server: from,
    containerId: row.containerId,
    kind: row.mode === 'memory' ? 'memory' : 'disk',
    checkpoint: null,
    pauseSeq: latestPause?.seq ?? null,
    at: stoppedAt,
    status: 'stale',
    generation: generation - 1,
    source: from,
    bytes: 0,
    syncedAt: null,
    failure: null,
    stageKey: null,
  })
  d.svc.spendPauseRecords(row.id, `the session went on from its replica on ${args.to}`)
  d.svc.setOrigin(row.id, { verb: 'failover', snapshot: null, memory, note: lost ?? note, at: nowIso() })
  const seconds = (performance.now() - t0) / 1000
  progress.done('failover', `${row.name} runs on ${args.to} from its replica${lost ? ` (${lost})` : ''}`, 0)
  return {
    session: ctx.sessions.toModel(final),
    from,
    to: args.to,
    memory,
    note,
    bytes: 0,
    seconds,
    layersSent: 0,
    layersSkipped: 0,
    resumed: true,
    fromReplica: true,
    lost,
  }
}

const clock = (iso: string) => {
  const d = new Date(iso)
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`
}

function ago(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 90) return `${s} s`
  const m = Math.round(s / 60)
  return m < 90 ? `${m} min` : `${Math.round(m / 60)} h`
}

interface Outcome {
  memory: boolean
  note: string | null
  memoryLatest: boolean
  latestSeq: number | null
  stoppedAt: string
  from: string
}

/** What the replica did not have, exactly: null when nothing. */
function lostSentence(rep: ReplicaRow, row: SessionRow, o: Outcome): string | null {
  if (o.memoryLatest && o.memory) return null
  if (row.state === 'paused' && rep.pauseSeq !== null && rep.pauseSeq === o.latestSeq) {
    // the very pause the session is in: its files are all there
    if (o.memoryLatest) return `its memory did not come back (${o.note ?? 'the restore failed'}); its files are those of the pause of ${clock(rep.at)}`
    if (row.mode === 'memory' || row.mode === 'frozen') return `its processes start afresh: the replica holds the files of the pause of ${clock(rep.at)}, not its memory`
    return null
  }
  const what = rep.pauseSeq !== null ? 'pause' : 'seal'
  const gap = Date.parse(o.stoppedAt) - Date.parse(rep.at)
  return `from the ${what} of ${clock(rep.at)}, ${ago(gap)} before ${o.from} stopped answering`
}
