// A session from a project's devcontainer.json: the file read and mapped, the image named or built on
// the session's server, then an ordinary create with the devcontainer's part (user, environment,
// ports, volumes, start commands) kept in the session's shape so every remake of its container has it.
import { createHash } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { BerthError, reasonOf } from '../../../shared/errors'
import type { Limits, Session, SessionSource } from '../../../shared/models'
import type { CoreBus } from '../bus'
import { devcontainerImage, LABEL_HOME } from '../engines/docker-names'
import type { EngineRegistry } from '../engines/engine-registry'
import { buildImageOn } from '../engines/image-builder'
import { progressOn } from '../progress'
import type { Lifecycle } from '../sessions/lifecycle'
import type { CreateSessionInput, SessionService } from '../sessions/session-service'
import type { DevShape } from '../sessions/session-shape'
import { contextTar, resolveBuildContext } from './build-context'
import { DEVCONTAINER_FILES, parseDevcontainer, type DevcontainerPlan } from './devcontainer-file'
import type { StartCommands } from './start-commands'

/** A devcontainer.json larger than this is no configuration file. */
const MAX_FILE_BYTES = 1024 * 1024
/** A build that takes longer is stopped (a first build of a big image can take minutes). */
const BUILD_MS = 20 * 60_000
const SESSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/**
 * A create from a devcontainer.json: a session's create with the project folder in place of the
 * image (the file gives the image, the devcontainer part and the source). Limits given here win
 * over the file's runArgs.
 */
export type DevcontainerCreate = Omit<CreateSessionInput, 'image' | 'dev' | 'source'> & {
  /** the project folder (absolute, on this machine) */
  dir: string
}

/** Finds devcontainer.json in a project folder, in the specification's order. */
export async function findDevcontainer(dir: string): Promise<string> {
  for (const f of DEVCONTAINER_FILES) {
    const path = join(dir, f)
    const st = await stat(path).catch(() => null)
    if (st?.isFile()) return path
  }
  throw new BerthError('not_found', `no devcontainer.json in ${dir} (looked for ${DEVCONTAINER_FILES.join(', ')})`)
}

export class DevcontainerService {
  constructor(
    private readonly sessions: SessionService,
    private readonly engines: EngineRegistry,
    private readonly bus: CoreBus,
    private readonly homeId: string,
    private readonly starts: StartCommands,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Reads the folder's devcontainer.json (what create would do with it, without doing it). */
  async read(dir: string): Promise<{ file: string; plan: DevcontainerPlan }> {
    const file = await findDevcontainer(dir)
    const st = await stat(file)
    if (st.size > MAX_FILE_BYTES) throw new BerthError('refused', `${file} is over ${MAX_FILE_BYTES} bytes`)
    return { file, plan: parseDevcontainer(await readFile(file, 'utf8'), file) }
  }

  async create(a: DevcontainerCreate, defaults: (given: Limits | undefined) => Limits): Promise<Session> {
    const dir = resolve(a.dir)
    const { file, plan } = await this.read(dir)
    const server = a.server ?? 'local'
    const engine = this.engines.get(server)
    const progress = progressOn(this.bus, a.op, null, server)
    let image = plan.image
    if (plan.build) {
      // the context is checked before the server is asked for anything
      const ctx = await resolveBuildContext(dir, dirname(file), plan.build)
      await engine.ready()
      const key = createHash('sha256').update(dir).digest('hex').slice(0, 12)
      image = devcontainerImage(this.homeId, key)
      await buildImageOn(engine, contextTar(ctx), { tag: image, dockerfile: ctx.dockerfile, args: plan.build.args, target: plan.build.target, labels: { [LABEL_HOME]: this.homeId }, ms: BUILD_MS }, progress)
    }
    const ignored = [...plan.ignored]
    let name = a.name
    if (!name && plan.name) {
      if (SESSION_NAME.test(plan.name)) name = plan.name
      else ignored.push(`name ${JSON.stringify(plan.name.slice(0, 64))} (not a session name)`)
    }
    const dev: DevShape = {
      ...(plan.remoteUser ? { user: plan.remoteUser } : {}),
      remoteEnv: plan.remoteEnv,
      ports: plan.forwardPorts,
      postStart: plan.postStart,
      volumes: plan.volumes,
    }
    const source: SessionSource = { kind: 'devcontainer', file, image: image!, built: !!plan.build, user: plan.remoteUser ?? null, ports: plan.forwardPorts, ignored }
    const session = await this.sessions.create({
      server,
      image: image!,
      name,
      env: { ...plan.containerEnv, ...a.env },
      workspace: a.workspace,
      secrets: a.secrets,
      limits: defaults({ ...plan.limits, ...a.limits }),
      restart: a.restart,
      dev,
      source,
      op: a.op,
    })
    if (ignored.length) this.lifecycle.note(session.id, 'devcontainer-ignored', { ignored })
    // postCreateCommand once, then postStartCommand (this first start's; later starts run it from the start hook)
    try {
      await this.starts.afterCreate(session.id, plan.postCreate, progress)
    } catch (e) {
      this.lifecycle.note(session.id, 'post-create-failed', { reason: reasonOf(e) })
    }
    return this.sessions.show(session.id)
  }
}
