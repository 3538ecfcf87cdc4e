// Runs a script against a session's /workspace: inside the session when it runs, else inside a
// short-lived helper container that mounts the session's workspace volume (a paused or failed
// session still has its repository there). Git runs on the server, next to the files. What a
// script answers is bounded here (its size, its time); the host trusts none of it.
import { createWriteStream } from 'node:fs'
import { BerthError, oneSentence } from '../../../shared/errors'
import { bytes } from '../../../shared/format'
import type { Engine } from '../engines/engine'
import { KEEPALIVE } from '../sessions/keepalive'
import { volumeName, LABEL_HOLDER } from '../engines/docker-names'
import { startExec, type ExecHandle } from '../sessions/exec'
import type { SessionRow } from '../store/sessions-repo'
import { containerOf } from '../sessions/container-spec'

export interface ScriptResult {
  code: number | null
  /** what the script printed, at most RunOptions.maxStdout bytes (never the bundle written to a file) */
  stdout: Buffer
  /** the first STDERR_KEEP bytes of its error output, for messages only */
  stderr: string
}

export interface RunOptions {
  /** fed to the script's stdin (a bundle from the host) */
  input?: Buffer | undefined
  /** values for the script (never spliced into it) */
  env?: Record<string, string> | undefined
  /** the whole run, from starting the exec to its last byte; the session may hang */
  timeoutMs?: number | undefined
  /** a session may print without end: past this many bytes the run fails */
  maxStdout?: number | undefined
  /** stdout goes to this file instead (a bundle), capped by maxStdout too */
  stdoutTo?: string | undefined
}

export interface WorkspaceHandle {
  /** runs `sh -c script` next to /workspace */
  run(script: string, opts?: RunOptions): Promise<ScriptResult>
  close(): Promise<void>
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000
const DEFAULT_MAX_STDOUT = 1 << 20
const STDERR_KEEP = 16 << 10

export class WorkspaceRunner {
  constructor(private readonly homeId: string) {}

  /** Opens a place to run scripts against the session's /workspace; close() removes any helper. */
  async open(engine: Engine, row: SessionRow): Promise<WorkspaceHandle> {
    await engine.ready()
    if (row.state === 'running' && row.containerId) {
      const id = row.containerId
      return { run: (script, opts) => execScript(engine, id, row.name, script, opts), close: async () => undefined }
    }
    const image = await this.imageOf(engine, row)
    let helper
    try {
      helper = await engine.docker.createContainer({
        Image: image,
        Entrypoint: KEEPALIVE,
        Cmd: [],
        WorkingDir: '/workspace',
        Labels: { [LABEL_HOLDER]: this.homeId, 'berth.role': 'workspace-helper' },
        NetworkDisabled: true,
        HostConfig: { Mounts: [{ Type: 'volume', Source: volumeName(row.id), Target: '/workspace' }], NetworkMode: 'none', AutoRemove: false },
      })
      await helper.start()
    } catch (e) {
      await helper?.remove({ force: true }).catch(() => undefined)
      throw new BerthError('engine', `could not reach the workspace of session ${row.name}: ${oneSentence((e as Error).message)}`)
    }
    const id = helper.id
    return {
      run: (script, opts) => execScript(engine, id, row.name, script, opts),
      close: async () => void (await helper.remove({ force: true }).catch(() => undefined)),
    }
  }

  /** The image of the session's container, which has git (the clone at create needed it). */
  private async imageOf(engine: Engine, row: SessionRow): Promise<string> {
    const info = await engine.docker
      .getContainer(containerOf(row))
      .inspect()
      .catch(() => null)
    return info?.Image ?? row.image
  }
}

/**
 * Runs the script with everything the session could stretch bounded: its output (kept in memory or
 * written to a file, up to maxStdout), its error output (the first 16 KiB), and the time it takes.
 */
async function execScript(engine: Engine, containerId: string, name: string, script: string, opts: RunOptions = {}): Promise<ScriptResult> {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  const maxStdout = opts.maxStdout ?? DEFAULT_MAX_STDOUT
  const out: Buffer[] = []
  const err: Buffer[] = []
  let outBytes = 0
  let errBytes = 0
  let handle: ExecHandle | undefined
  let failed = false
  let abort!: (e: BerthError) => void
  const aborted = new Promise<never>((_res, rej) => (abort = rej))
  aborted.catch(() => undefined)
  const fail = (e: BerthError) => {
    if (failed) return
    failed = true
    abort(e)
    handle?.close()
  }
  const file = opts.stdoutTo ? createWriteStream(opts.stdoutTo, { mode: 0o600 }) : undefined
  const written = file ? new Promise<void>((res, rej) => file.on('finish', res).on('error', rej)) : Promise.resolve()
  written.catch(() => undefined)
  file?.on('error', (e) => fail(new BerthError('internal', `could not keep what session ${name} sent: ${oneSentence(e.message)}`)))
  const onData = (fd: 1 | 2, d: Buffer) => {
    if (failed) return
    if (fd === 2) {
      if (errBytes < STDERR_KEEP) err.push(Buffer.from(d.subarray(0, STDERR_KEEP - errBytes)))
      errBytes += d.length
      return
    }
    outBytes += d.length
    if (outBytes > maxStdout) {
      return fail(new BerthError('refused', `session ${name} wrote more than ${bytes(maxStdout)} where Berth expected ${file ? 'a bundle' : 'a short answer'}; Berth took nothing from it`))
    }
    if (!file) return void out.push(Buffer.from(d))
    // the disk is the slower side: hold the session's output while the file catches up
    if (!file.write(d)) {
      handle?.pause()
      file.once('drain', () => handle?.resume())
    }
  }
  const timer = setTimeout(() => fail(new BerthError('unreachable', `session ${name} did not finish its part of the work on /workspace within ${Math.round(timeoutMs / 1000)} s; Berth took nothing from it`)), timeoutMs)
  try {
    const started = startExec(engine.docker, containerId, { cmd: ['sh', '-c', script], stdin: opts.input !== undefined, workingDir: '/workspace', env: opts.env }, onData)
    // an exec that starts after the deadline is closed as soon as it does
    void started.then((h) => failed && h.close(), () => undefined)
    handle = await Promise.race([started, aborted])
    if (opts.input !== undefined) {
      handle.write(opts.input)
      handle.end()
    }
    const { code, dropped } = await Promise.race([handle.exit, aborted])
    if (failed) await aborted
    if (dropped) throw new BerthError('unreachable', `lost the connection to ${engine.name} while working on the workspace; try again`)
    file?.end()
    await Promise.race([written, aborted])
    return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }
  } finally {
    clearTimeout(timer)
    if (file && !file.writableFinished) file.destroy()
  }
}
