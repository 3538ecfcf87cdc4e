// Carries what a session's container is made of to another server and makes the container there:
// the image layers the target lacks, the writable layer, the workspace's files and, when it can
// travel, the memory checkpoint. Used by a move (a paused session's own container) and by a session
// started on another server from a snapshot. The source is only read.
//
// With the root helper on both sides the parts go as one stream, read from Docker's own folders and
// unpacked by root as they arrive (no extra pass over the bytes); without it, the writable layer
// travels in a committed image and the workspace through the docker CLI, staged part by part.
import { shapeOf } from '../sessions/session-shape'
import { dirname } from 'node:path'
import type Dockerode from 'dockerode'
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { ProgressReporter } from '../progress'
import { containerSpec } from '../sessions/container-spec'
import { volumeName } from '../engines/docker-names'
import { ensureWorkspaceVolume, removeSessionContainer } from '../sessions/session-container'
import type { SessionRow } from '../store/sessions-repo'
import { carryImage, imageLayers, layersOn } from '../engines/image-carrier'
import { tagForSession } from './restore'
import { removeVolume } from './server-steps'
import { streamParts, type Part, type StagedPart, type Transfer } from './transfer'

export interface CarryRequest {
  source: Engine
  target: Engine
  homeId: string
  /** names the staged files on both servers: the same key finds an earlier try's parts */
  key: string
  /** the session whose container is made on the target (its id, route, env, secrets) */
  row: SessionRow
  env: Record<string, string>
  /** the image on the source the new container is made from (by id or tag) */
  image: string
  /** the root helper runs on both servers: the one-stream path */
  root: boolean
  /** the source container whose writable layer travels on top of `image` (root path only) */
  upperFrom?: string | undefined
  /** where the workspace's files come from: a volume (root path) or a container's /workspace */
  workspaceFrom: { volume: string } | { container: string }
  /** a memory checkpoint to place in the new container under the same name (root path only) */
  checkpointFrom?: { container: string; name: string; layout: 'split' | 'docker' } | undefined
  progress?: ProgressReporter | undefined
}

export interface CarryOutcome {
  containerId: string
  image: string
  /** bytes that crossed the connection in this try (layers and parts) */
  bytes: number
  /** bytes an earlier, cut try had already delivered */
  resumedBytes: number
  layersSent: number
  layersSkipped: number
}

export async function carryContainer(transfer: Transfer, req: CarryRequest): Promise<CarryOutcome> {
  const { source, target, progress } = req
  const checkpoints = transfer.checkpoints
  let bytes = 0
  let layersSent = 0
  let layersSkipped = 0
  // 1. the image: only the layers the target lacks travel (moby's loader skips the others)
  progress?.stage('image', `checking which layers ${target.name} lacks`)
  const layers = await imageLayers(source, req.image)
  if (!layers) throw new BerthError('not_found', `image not found on ${source.name}: ${req.image}`)
  const sourceId = (await source.docker.getImage(req.image).inspect()).Id
  if (await imageLayers(target, sourceId)) layersSkipped = layers.length
  else {
    const carried = await carryImage({ source, target, ref: sourceId, homeId: req.homeId, progress, have: await layersOn(target) })
    bytes += carried.bytes
    layersSent = carried.layersSent
    layersSkipped = carried.layersSkipped
  }
  const image = await tagForSession(target, req.homeId, req.row.id, sourceId)

  // 2. the container on the target, made as at creation (its parts go in before it ever starts)
  const make = async (): Promise<Dockerode.Container> => {
    // anything of this session on the target is a leftover of an earlier, failed try
    await removeSessionContainer(target, req.row.id)
    await removeVolume(target, volumeName(req.row.id))
    await ensureWorkspaceVolume(target, req.row.id, req.homeId)
    return await target.docker.createContainer(
      containerSpec({ id: req.row.id, route: req.row.route, image, env: req.env, home: req.homeId, secrets: req.row.secrets.length > 0, shape: shapeOf(req.row.options) }),
    )
  }

  // 3. the parts
  if (req.root) {
    // the container is made while the two sides check what an earlier try left: the stream
    // unpacks straight into its writable layer, its volume and its checkpoints folder
    const targetRoot = (await target.facts()).dockerRootDir
    const making = (async () => {
      const created = await make()
      const info = await created.inspect()
      return { info, upper: await upperDir(target, info.Id), volume: await volumeDir(target, volumeName(req.row.id)) }
    })()
    making.catch(() => undefined)
    const members: Array<[string, string]> = []
    const placing: Array<(m: Awaited<typeof making>) => [string, string]> = []
    const names: string[] = []
    if (req.upperFrom) {
      members.push([dirname(await upperDir(source, req.upperFrom)), 'diff'])
      placing.push((m) => ['diff', m.upper])
      names.push('writable layer')
    }
    if ('volume' in req.workspaceFrom) {
      members.push([dirname(await volumeDir(source, req.workspaceFrom.volume)), '_data'])
      placing.push((m) => ['_data', m.volume])
      names.push('workspace')
    }
    const cp = req.checkpointFrom
    if (cp) {
      const root = (await source.facts()).dockerRootDir
      const id = (await source.docker.getContainer(cp.container).inspect()).Id
      const dest = (m: Awaited<typeof making>) => `${targetRoot}/containers/${m.info.Id}/checkpoints/${cp.name}`
      members.push([`${root}/containers/${id}/checkpoints`, cp.name])
      placing.push((m) => [cp.name, dest(m)])
      if (cp.layout === 'split') {
        // the pages follow into the checkpoint's own folder (Docker's plain layout on the target),
        // in place of the links to them (tar would make links last, over the pages)
        members.unshift(['-x', `${cp.name}/pages-*.img`])
        members.push([`${root}/containers/${id}/berth`, `pages-${cp.name}`])
        placing.push((m) => [`pages-${cp.name}`, dest(m)])
      }
      names.push('memory checkpoint')
    }
    progress?.stage('send', `sending the ${names.join(', ')} to ${target.name}`)
    const places = making.then((m) => placing.map((f) => f(m)))
    const stats = await streamParts(transfer, checkpoints, { source, target, key: req.key, members, places, progress, label: names.join(', ') })
    bytes += stats.sent
    const made = await making
    return { containerId: made.info.Id, image, bytes, resumedBytes: stats.resumed, layersSent, layersSkipped }
  }

  // without root: the workspace through the docker CLI, staged and relayed part by part
  if ('volume' in req.workspaceFrom) throw new BerthError('internal', 'a volume travels only with the root helper')
  const part: Part = { kind: 'workspace', what: req.workspaceFrom.container }
  progress?.stage('stage', `preparing the workspace on ${source.name}`)
  const staged: StagedPart = await transfer.pack(source, req.key, part, 'workspace.tar')
  const targetFile = `${await transfer.stage.dir(target, req.key)}/workspace.tar`
  progress?.stage('send', `sending the workspace to ${target.name}`, staged.bytes)
  const r = await transfer.relay(source, staged, target, targetFile, progress, 'workspace')
  bytes += r.sent
  progress?.stage('apply', `making the session's container on ${target.name}`)
  const created = await make()
  await transfer.unpack(target, { kind: 'workspace', what: created.id }, targetFile)
  return { containerId: created.id, image, bytes, resumedBytes: r.resumed, layersSent, layersSkipped }
}

async function upperDir(engine: Engine, container: string): Promise<string> {
  const info = await engine.docker.getContainer(container).inspect()
  const upper = (info.GraphDriver?.Data as Record<string, string> | undefined)?.UpperDir
  if (!upper || !upper.endsWith('/diff')) throw new BerthError('unavailable', `the engine on ${engine.name} does not use overlay2; its writable layers cannot travel this way`)
  return upper
}

async function volumeDir(engine: Engine, name: string): Promise<string> {
  const v = (await engine.docker.getVolume(name).inspect()) as { Mountpoint?: string }
  if (!v.Mountpoint || !v.Mountpoint.endsWith('/_data')) throw new BerthError('unavailable', `the volume ${name} on ${engine.name} is not a local volume`)
  return v.Mountpoint
}
