// What changed between two snapshots of a session, for the snapshot browser and `berth snapshot
// diff`: computed on the snapshots' server from their committed layers and workspace copies
// (server-script/sh/diff.sh), which keeps the list so its next pages cost a file read.
import type { DiffEntry, DiffPage, FileDiff } from '../../../shared/contract/snapshot-browser'
import { BerthError } from '../../../shared/errors'
import { exitWords } from '../engines/engine'
import { runnerFor } from '../engines/server-script/server-runner'
import type { SnapshotRow } from '../store/snapshots-repo'
import type { SnapshotService } from './snapshot-service'

const STATUS: Record<string, DiffEntry['status']> = { A: 'added', M: 'changed', D: 'deleted' }
const TYPE: Record<string, DiffEntry['type']> = { f: 'file', d: 'dir', l: 'link' }
/** A text diff is shown for files up to this size, cut at this many lines. */
const DIFF_MAX_BYTES = 256 * 1024
const DIFF_MAX_LINES = 2000

interface Side {
  label: string
  image: string
  volume: string
}

/** The two sides: `to`, and `from` (default: the checkpoint before it, or the image its session started from). */
function sides(svc: SnapshotService, to: string, from: string | undefined): { server: string; a: Side; b: Side } {
  const b = svc.resolve(to)
  if (!b.imageRef) throw new BerthError('refused', `snapshot ${b.id} keeps no disk image to compare`)
  let a: SnapshotRow | undefined
  if (from) a = svc.resolve(from)
  else if (b.parentSnapshot) a = svc.ctx.repo.get(b.parentSnapshot)
  if (a && a.state !== 'ready') a = undefined
  const bSide = { label: b.id, image: b.imageRef, volume: b.volumeRef ?? '-' }
  if (!a) {
    const image = b.detail.originImage
    if (!image) throw new BerthError('refused', `snapshot ${b.id} has no earlier checkpoint to compare with`)
    return { server: b.server, a: { label: image, image, volume: '-' }, b: bSide }
  }
  if (a.server !== b.server) throw new BerthError('refused', `${a.id} is kept on ${a.server} and ${b.id} on ${b.server}: compare two snapshots on one server`)
  if (!a.imageRef) throw new BerthError('refused', `snapshot ${a.id} keeps no disk image to compare`)
  return { server: b.server, a: { label: a.id, image: a.imageRef, volume: a.volumeRef ?? '-' }, b: bSide }
}

/** One line of the server's list: "STATUS TYPE SIZE<TAB>PATH" (anything else is skipped). */
function parseEntry(line: string): DiffEntry | null {
  const m = /^([AMD]) ([a-zA-Z]) (\d+)\t(\/.*)$/.exec(line)
  if (!m) return null
  return { status: STATUS[m[1]!]!, type: TYPE[m[2]!] ?? 'other', size: Number(m[3]), path: m[4]! }
}

export async function diff(svc: SnapshotService, args: { to: string; from?: string | undefined; offset?: number | undefined; limit?: number | undefined }): Promise<DiffPage> {
  const { server, a, b } = sides(svc, args.to, args.from)
  const engine = svc.ctx.engines.get(server)
  await engine.ready()
  const offset = args.offset ?? 0
  const limit = args.limit ?? 500
  const r = await runnerFor(engine, svc.ctx.homeId).run(['diff-list', a.image, b.image, a.volume, b.volume, String(offset), String(limit)])
  const sep = r.stdout.indexOf('\n---\n')
  if (r.code !== 0 || sep < 0) {
    const reason = /^error (.*)$/m.exec(r.stdout)?.[1] ?? (r.stderr.trim().split('\n').pop() || exitWords(r.code, r.ending))
    throw new BerthError(r.code === null ? 'unreachable' : 'internal', `comparing ${a.label} with ${b.label} on ${server} failed: ${reason}`)
  }
  const head = r.stdout.slice(0, sep)
  const total = Number(/^total (\d+)$/m.exec(head)?.[1] ?? 0)
  const items = r.stdout
    .slice(sep + 5)
    .split('\n')
    .map(parseEntry)
    .filter((e): e is DiffEntry => e !== null)
  return { from: a.label, to: b.label, total, cached: /^cached yes$/m.test(head), items, next: offset + limit < total ? offset + limit : null }
}

export async function diffFile(svc: SnapshotService, args: { to: string; from?: string | undefined; path: string }): Promise<FileDiff> {
  const { server, a, b } = sides(svc, args.to, args.from)
  const engine = svc.ctx.engines.get(server)
  await engine.ready()
  const r = await runnerFor(engine, svc.ctx.homeId).run(['diff-file', a.image, b.image, a.volume, b.volume, args.path, String(DIFF_MAX_BYTES)])
  const nl = r.stdout.indexOf('\n')
  const first = nl < 0 ? r.stdout : r.stdout.slice(0, nl)
  if (r.code !== 0 || !/^(diff|binary|large \d+)$/.test(first)) {
    const reason = /^error (.*)$/m.exec(r.stdout)?.[1] ?? (r.stderr.trim().split('\n').pop() || exitWords(r.code, r.ending))
    throw new BerthError(r.code === null ? 'unreachable' : 'internal', `comparing ${args.path} on ${server} failed: ${reason}`)
  }
  if (first === 'binary') return { path: args.path, kind: 'binary', text: null, bytes: null, truncated: false }
  if (first.startsWith('large')) return { path: args.path, kind: 'large', text: null, bytes: Number(first.slice(6)), truncated: false }
  const lines = r.stdout.slice(nl + 1).split('\n')
  const truncated = lines.length > DIFF_MAX_LINES
  return { path: args.path, kind: 'diff', text: lines.slice(0, DIFF_MAX_LINES).join('\n'), bytes: null, truncated }
}
