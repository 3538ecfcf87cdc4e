// Moves the parts of a session between servers over Berth's own connections: a container's
// writable layer, a workspace's files and a memory checkpoint, each staged as a file on the source
// (read from Docker's own folders by the root helper, or through the docker CLI when there is no
// root), relayed to the target, and applied there. A relay cut half way (a dropped ssh connection)
// leaves the source untouched, and the next try sends only the bytes the target does not have yet.
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Checkpoints } from '../checkpoints/checkpoints'
import { exitWords, type Engine, type ShellProcess } from '../engines/engine'
import { runnerFor } from '../engines/server-script/server-runner'
import type { ProgressReporter } from '../progress'

/** A part staged without the root helper: a container's /workspace, through the docker CLI. */
export interface Part {
  kind: 'workspace'
  /** the container it is read from / written into */
  what: string
}

export interface StagedPart {
  part: Part
  file: string
  bytes: number
}

export interface RelayStats {
  /** bytes that crossed the connection in this try */
  sent: number
  /** bytes the target already had from an earlier try */
  resumed: number
}

/** The folder a transfer keeps its parts in on a server (the ssh user's state folder). */
export class TransferStage {
  constructor(private readonly homeId: string) {}

  async dir(engine: Engine, key: string): Promise<string> {
    return await runnerFor(engine, this.homeId).field(['xfer-dir', key], 'dir', 'finding the transfer folder', { again: true })
  }

  async remove(engine: Engine, key: string): Promise<void> {
    await runnerFor(engine, this.homeId).run(['xfer-remove', key]).catch(() => undefined)
  }
}

export class Transfer {
  readonly stage: TransferStage
  private readonly rootCache = new Map<string, Promise<boolean>>()

  constructor(
    readonly checkpoints: Checkpoints,
    private readonly homeId: string,
  ) {
    this.stage = new TransferStage(homeId)
  }

  /** Can the server's root helper read and write Docker's folders (the fast path)? */
  canRoot(server: string): Promise<boolean> {
    let p = this.rootCache.get(server)
    if (!p) {
      p = this.checkpoints
        .runner(server)
        .fields(['probe'], 'probing the root helper')
        .then((f) => f.get('root')?.[0] === 'yes')
        .catch(() => false)
      this.rootCache.set(server, p)
    }
    return p
  }

  /** Stages a part as a file on its server (reused when an earlier try already made it). */
  async pack(engine: Engine, key: string, part: Part, file: string): Promise<StagedPart> {
    const path = `${await this.stage.dir(engine, key)}/${file}`
    // the engine itself reads the container's /workspace (a tar with workspace/ inside)
    const bytes = await this.runner(engine).field(['part-pack', path, part.what], 'bytes', 'staging the workspace')
    return { part, file: path, bytes: Number(bytes) }
  }

  /** Applies a staged part on the target. */
  async unpack(engine: Engine, part: Part, file: string): Promise<void> {
    await this.runner(engine).fields(['part-unpack', file, part.what], 'unpacking the workspace')
  }

  private runner(engine: Engine) {
    return runnerFor(engine, this.homeId)
  }

  /**
   * Sends a staged file to the same name on the target, from the byte the target has up to; the
   * target's partial file grows until it is whole. A cut connection throws and keeps what arrived.
   */
  async relay(source: Engine, staged: StagedPart, target: Engine, targetFile: string, progress?: ProgressReporter, label: string = staged.part.kind, offset = 0, total = staged.bytes): Promise<RelayStats> {
    const have = Number(await this.runner(target).field(['part-have', targetFile, String(staged.bytes)], 'have', 'checking what the target has', { again: true }))
    if (have === staged.bytes) return { sent: 0, resumed: have }
    // the receiving end first: a local source that exits before anyone reads it loses its output
    const dst = await this.runner(target).stream(['part-append', targetFile])
    let src
    try {
      src = await this.runner(source).stream(['part-read', staged.file, String(have)])
    } catch (e) {
      dst.kill()
      throw e
    }
    src.stdin.end()
    let sent = 0
    const counter = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        sent += chunk.length
        progress?.bytes('send', `sending the ${label} to ${target.name}`, offset + have + sent, total)
        cb(null, chunk)
      },
    })
    const errs: Buffer[] = []
    src.stderr.on('data', (d: Buffer) => errs.push(d))
    dst.stderr.on('data', (d: Buffer) => errs.push(d))
    // the target's output must flow, or an ssh channel never closes and its exit never comes
    dst.stdout.on('data', () => undefined)
    try {
      await pipeline(src.stdout, counter, dst.stdin)
    } catch (e) {
      src.kill()
      dst.kill()
      throw cut(source, target, label, e)
    }
    const [srcCode, dstCode] = await Promise.all([src.exit, dst.exit])
    if (srcCode !== 0 || dstCode !== 0) {
      throw cut(source, target, label, new Error(oneSentence(Buffer.concat(errs).toString() || pairExitWords(src, srcCode, dst, dstCode))))
    }
    const size = Number(await this.runner(target).field(['part-size', targetFile], 'bytes', 'checking the received part', { again: true }))
    if (size !== staged.bytes) throw cut(source, target, label, new Error(`${size} of ${staged.bytes} bytes arrived`))
    return { sent, resumed: have }
  }
}

export interface StreamRequest {
  source: Engine
  target: Engine
  key: string
  /** what travels, as folders on the source and the member of each that goes (diff, _data...) */
  members: Array<[dir: string, member: string]>
  /** where each member lands on the target: [member, folder] (may still be in the making) */
  places: Array<[member: string, dest: string]> | Promise<Array<[member: string, dest: string]>>
  progress?: ProgressReporter | undefined
  label: string
}

export interface StreamStats extends RelayStats {
  total: number
}

function numberField(f: Map<string, string[]>, key: string): number | undefined {
  const v = f.get(key)?.[0]
  return v === undefined ? undefined : Number(v)
}

function fieldsOf(out: string): Map<string, string[]> {
  const m = new Map<string, string[]>()
  for (const line of out.split('\n')) {
    const sp = line.indexOf(' ')
    if (sp > 0) m.set(line.slice(0, sp), [...(m.get(line.slice(0, sp)) ?? []), line.slice(sp + 1)])
  }
  return m
}

/** The fast path (root helper on both sides): one tar stream, read and unpacked by root as it goes. */
export async function streamParts(transfer: Transfer, checkpoints: Checkpoints, req: StreamRequest): Promise<StreamStats> {
  const { source, target } = req
  const [srcStage, dstStage] = await Promise.all([transfer.stage.dir(source, req.key), transfer.stage.dir(target, req.key)])
  const [s, t, places] = await Promise.all([
    checkpoints.runner(source.name).fields(['xfer-status', srcStage], 'checking the staged parts'),
    checkpoints.runner(target.name).fields(['xfer-status', dstStage], 'checking what arrived'),
    req.places,
  ])
  const complete = numberField(s, 'size')
  const have = numberField(t, 'have') ?? 0
  // an earlier try's bytes count only against a complete copy on the source (the same bytes again)
  const offset = complete !== undefined && have <= complete ? have : 0
  const dst = await checkpoints.runner(target.name).stream(['xfer-receive', dstStage, String(offset), ...places.flat()])
  let src
  try {
    src = await checkpoints.runner(source.name).stream(['xfer-send', srcStage, String(offset), ...req.members.flat()])
  } catch (e) {
    dst.kill()
    throw e
  }
  src.stdin.end()
  let sent = 0
  const total = complete ?? null
  const progress = req.progress
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      sent += chunk.length
      progress?.bytes('send', `sending the ${req.label} to ${target.name}`, offset + sent, total)
      cb(null, chunk)
    },
  })
  const out: Buffer[] = []
  const errs: Buffer[] = []
  dst.stdout.on('data', (d: Buffer) => out.push(d))
  src.stderr.on('data', (d: Buffer) => errs.push(d))
  dst.stderr.on('data', (d: Buffer) => errs.push(d))
  try {
    await pipeline(src.stdout, counter, dst.stdin)
  } catch (e) {
    // the source is left to finish its copy (it no longer has a reader): the next try sends from it
    src.stdout.destroy()
    dst.kill()
    throw cut(source, target, req.label, e)
  }
  const [srcCode, dstCode] = await Promise.all([src.exit, dst.exit])
  const got = fieldsOf(Buffer.concat(out).toString())
  if (srcCode !== 0 || dstCode !== 0) {
    const why = got.get('error')?.[0] ?? oneSentence(Buffer.concat(errs).toString() || pairExitWords(src, srcCode, dst, dstCode))
    if (srcCode === null || dstCode === null) throw cut(source, target, req.label, new Error(why))
    throw new BerthError('transfer', `sending the ${req.label} to ${target.name} failed: ${why}`)
  }
  const size = complete ?? numberField(await checkpoints.runner(source.name).fields(['xfer-status', srcStage], 'checking the staged parts'), 'size')
  const received = numberField(got, 'bytes')
  if (size === undefined || received !== size) throw cut(source, target, req.label, new Error(`${received ?? 0} of ${size ?? '?'} bytes arrived`))
  // whole and in place: neither side needs its copy any more (removed off the critical path)
  void checkpoints.runner(source.name).run(['xfer-done', srcStage]).catch(() => undefined)
  void checkpoints.runner(target.name).run(['xfer-done', dstStage]).catch(() => undefined)
  return { sent, resumed: offset, total: size }
}

function cut(source: Engine, target: Engine, label: string, e: unknown): BerthError {
  if (e instanceof BerthError && e.code === 'unreachable') return e
  return new BerthError(
    'unreachable',
    `sending the ${label} from ${source.name} to ${target.name} was cut (${oneSentence((e as Error).message)}); nothing changed on ${source.name}, and the next try continues where this one stopped`,
  )
}

/** How a source and target pair failed: the first of the two that did not exit 0. */
function pairExitWords(src: ShellProcess, srcCode: number | null, dst: ShellProcess, dstCode: number | null): string {
  return srcCode !== 0 ? exitWords(srcCode, src.ending()) : exitWords(dstCode, dst.ending())
}
