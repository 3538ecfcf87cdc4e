// Runs a script against a session's /workspace: inside the session when it runs, else inside a
// short-lived helper container that mounts the session's workspace volume (a paused or failed
// session still has its repository there). Git runs on the server, next to the files.
import { BerthError, oneSentence } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import { containerName, KEEPALIVE, volumeName } from '../sessions/container-spec'
import { startExec } from '../sessions/exec'
import type { SessionRow } from '../store/sessions-repo'
import { LABEL_HOLDER } from '../snapshots/snapshot-names'

export interface ScriptResult {
  code: number | null
  stdout: Buffer
  stderr: string
}

export interface WorkspaceHandle {
  /** runs `sh -c script` next to /workspace; env carries values (never spliced into the script) */
  run(script: string, input?: Buffer, env?: Record<string, string>): Promise<ScriptResult>
  close(): Promise<void>
}

export class WorkspaceRunner {
  constructor(private readonly homeId: string) {}

  /** Opens a place to run scripts against the session's /workspace; close() removes any helper. */
  async open(engine: Engine, row: SessionRow): Promise<WorkspaceHandle> {
    await engine.ready()
    if (row.state === 'running' && row.containerId) {
      const id = row.containerId
      return { run: (script, input, env) => execScript(engine, id, script, input, env), close: async () => undefined }
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
      throw new BerthError('internal', `could not reach the workspace of session ${row.name}: ${oneSentence((e as Error).message)}`)
    }
    const id = helper.id
    return {
      run: (script, input, env) => execScript(engine, id, script, input, env),
      close: async () => void (await helper.remove({ force: true }).catch(() => undefined)),
    }
  }

  /** The image of the session's container, which has git (the clone at create needed it). */
  private async imageOf(engine: Engine, row: SessionRow): Promise<string> {
    const info = await engine.docker
      .getContainer(row.containerId ?? containerName(row.id))
      .inspect()
      .catch(() => null)
    return info?.Image ?? row.image
  }
}

async function execScript(engine: Engine, containerId: string, script: string, input?: Buffer, env?: Record<string, string>): Promise<ScriptResult> {
  const out: Buffer[] = []
  const err: Buffer[] = []
  const h = await startExec(engine.docker, containerId, { cmd: ['sh', '-c', script], stdin: input !== undefined, workingDir: '/workspace', env }, (fd, d) =>
    (fd === 1 ? out : err).push(Buffer.from(d)),
  )
  if (input !== undefined) {
    h.write(input)
    h.end()
  }
  const { code, dropped } = await h.exit
  if (dropped) throw new BerthError('unreachable', `lost the connection to ${engine.name} while working on the workspace; try again`)
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }
}
