// A session's timeline for the snapshot browser: its checkpoints oldest first, each with what depends
// on it (later snapshots, sessions made from it: why retention keeps it), and the lineage of sessions
// around it (forks and sessions started from snapshots, across sessions).
import type { Dependent, LineageNode, Timeline } from '../../../shared/contract/snapshot-browser'
import { SessionOrigin } from '../../../shared/models'
import type { SessionRow } from '../store/sessions-repo'
import type { SnapshotService } from './snapshot-service'

/** A lineage is drawn whole up to this many sessions (the ones nearest the session first). */
const LINEAGE_LIMIT = 300

const originOf = (row: SessionRow): SessionOrigin | null => {
  const o = SessionOrigin.safeParse(row.options.origin)
  return o.success ? o.data : null
}

export function timeline(svc: SnapshotService, ref: string): Timeline {
  const session = svc.ctx.sessions.resolve(ref)
  const rows = svc.ctx.repo.forSession(session.id).reverse()
  const all = svc.ctx.sessionsRepo.list()

  // every session's parent: the session that owned the snapshot it was made from
  const snapshotOwner = new Map<string, string | null>()
  const ownerOf = (snapshotId: string): string | null => {
    if (!snapshotOwner.has(snapshotId)) snapshotOwner.set(snapshotId, svc.ctx.repo.get(snapshotId)?.sessionId ?? null)
    return snapshotOwner.get(snapshotId)!
  }
  const nodes = new Map<string, LineageNode>()
  const kids = new Map<string, string[]>()
  for (const row of all) {
    const origin = originOf(row)
    const parent = origin?.snapshot ? ownerOf(origin.snapshot) : null
    nodes.set(row.id, { id: row.id, name: row.name, state: row.state, server: row.server, parent, snapshot: origin?.snapshot ?? null, verb: origin?.verb ?? null })
    if (parent) kids.set(parent, [...(kids.get(parent) ?? []), row.id])
  }
  // the root of this session's tree, then everything below it
  let root = session.id
  const seen = new Set<string>([root])
  for (let p = nodes.get(root)?.parent; p && nodes.has(p) && !seen.has(p); p = nodes.get(p)?.parent) {
    seen.add(p)
    root = p
  }
  const lineage: LineageNode[] = []
  const queue = [root]
  const taken = new Set<string>()
  while (queue.length && lineage.length < LINEAGE_LIMIT) {
    const id = queue.shift()!
    if (taken.has(id)) continue
    taken.add(id)
    const n = nodes.get(id)
    if (!n) continue
    lineage.push(taken.size === 1 ? { ...n, parent: null } : n)
    queue.push(...(kids.get(id) ?? []))
  }

  const dependents = new Map<string, Dependent[]>()
  const add = (snapshotId: string, d: Dependent) => dependents.set(snapshotId, [...(dependents.get(snapshotId) ?? []), d])
  for (const c of svc.ctx.repo.children(rows.map((r) => r.id))) add(c.parent, { kind: 'snapshot', id: c.id, name: c.id })
  const mine = new Set(rows.map((r) => r.id))
  for (const n of nodes.values()) if (n.snapshot && mine.has(n.snapshot) && n.state !== 'finished') add(n.snapshot, { kind: 'session', id: n.id, name: n.name })

  return {
    session: { id: session.id, name: session.name },
    items: rows.map((r) => ({ ...svc.toModel(r), dependents: dependents.get(r.id) ?? [] })),
    lineage,
  }
}
