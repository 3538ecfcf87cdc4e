// Moves the parts of a session between servers over Berth's own connections: a container's
// writable layer, a workspace's files and a memory checkpoint, each staged as a file on the source
// (read from Docker's own folders by the root helper, or through the docker CLI when there is no
// root), relayed to the target, and applied there. A relay cut half way (a dropped ssh connection)
// leaves the source untouched, and the next try sends only the bytes the target does not have yet.
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Checkpoints } from '../checkpoints/checkpoints'
import { runShell, shq, type Engine } from '../engines/engine'
import type { ProgressReporter } from '../progress'
import { shellOk } from './server-steps'

export type PartKind = 'upper' | 'volume' | 'checkpoint' | 'workspace'

export interface Part {
  kind: PartKind
  /** the container (upper, checkpoint, workspace) or the volume (volume) it is read from / written into */
  what: string
  /** the checkpoint's name */
  name?: string
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
  private readonly roots = new Map<string, Promise<string>>()

  constructor(private readonly homeId: string) {}

  async dir(engine: Engine, key: string): Promise<string> {
    let root = this.roots.get(engine.name)
    if (!root) {
      root = shellOk(engine, `printf '%s' "\${XDG_STATE_HOME:-$HOME/.local/state}/berth/${this.homeId}/xfer"`, 'finding the transfer folder').then((s) => s.trim())
      root.catch(() => this.roots.delete(engine.name))
      this.roots.set(engine.name, root)
    }
    return `${await root}/${key}`
  }

  async remove(engine: Engine, key: string): Promise<void> {
    const dir = await this.dir(engine, key)
    await runShell(engine, `rm -rf ${shq(dir)}`).catch(() => undefined)
  }
}

export class Transfer {
  readonly stage: TransferStage
  private readonly rootCache = new Map<string, Promise<boolean>>()

  constructor(
    private readonly checkpoints: Checkpoints,
    homeId: string,
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
    if (part.kind === 'workspace') {
      // no root: the engine itself reads the container's /workspace (a tar with workspace/ inside)
      const out = await shellOk(
        engine,
        `F=${shq(path)}
if [ ! -f "$F" ]; then mkdir -p "\${F%/*}"; docker cp ${shq(`${part.what}:/workspace`)} - > "$F.tmp" && mv "$F.tmp" "$F"; fi
wc -c < "$F"`,
        'staging the workspace',
      )
      return { part, file: path, bytes: Number(out.trim()) }
    }
    const f = await this.checkpoints.runner(engine.name).fields(['xfer-pack', part.kind, part.what, part.name ?? '-', path], `staging the ${part.kind}`)
    return { part, file: path, bytes: Number(f.get('bytes')?.[0] ?? 0) }
  }

  /** Applies a staged part on the target. */
  async unpack(engine: Engine, part: Part, file: string): Promise<void> {
    if (part.kind === 'workspace') {
      await shellOk(engine, `docker cp -a - ${shq(`${part.what}:/`)} < ${shq(file)}`, 'unpacking the workspace')
      return
    }
    await this.checkpoints.runner(engine.name).fields(['xfer-unpack', part.kind, part.what, part.name ?? '-', file], `unpacking the ${part.kind}`)
  }

  /**
   * Sends a staged file to the same name on the target, from the byte the target has up to; the
   * target's partial file grows until it is whole. A cut connection throws and keeps what arrived.
   */
  async relay(source: Engine, staged: StagedPart, target: Engine, targetFile: string, progress?: ProgressReporter, label: string = staged.part.kind, offset = 0, total = staged.bytes): Promise<RelayStats> {
    const have = Number(
      (
        await shellOk(
          target,
          `F=${shq(targetFile)}; mkdir -p "\${F%/*}"; if [ -f "$F" ]; then n=$(wc -c < "$F"); if [ "$n" -gt ${staged.bytes} ]; then rm -f "$F"; n=0; fi; echo "$n"; else echo 0; fi`,
          'checking what the target has',
        )
      ).trim(),
    )
    if (have === staged.bytes) return { sent: 0, resumed: have }
    // the receiving end first: a local source that exits before anyone reads it loses its output
    const dst = await target.shell(`cat >> ${shq(targetFile)}`)
    let src
    try {
      src = await source.shell(`tail -c +${have + 1} ${shq(staged.file)}`)
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
      throw cut(source, target, label, new Error(oneSentence(Buffer.concat(errs).toString() || `exit ${srcCode ?? dstCode ?? 'on a dropped connection'}`)))
    }
    const size = Number((await shellOk(target, `wc -c < ${shq(targetFile)}`, 'checking the received part')).trim())
    if (size !== staged.bytes) throw cut(source, target, label, new Error(`${size} of ${staged.bytes} bytes arrived`))
    return { sent, resumed: have }
  }
}

function cut(source: Engine, target: Engine, label: string, e: unknown): BerthError {
  if (e instanceof BerthError && e.code === 'unreachable') return e
  return new BerthError(
    'unreachable',
    `sending the ${label} from ${source.name} to ${target.name} was cut (${oneSentence((e as Error).message)}); nothing changed on ${source.name}, and the next try continues where this one stopped`,
  )
}
