// Carries what a session's container is made of to another server and makes the container there:
// the image layers the target lacks, the writable layer, the workspace's files and, when it can
// travel, the memory checkpoint. Used by a move (a paused session's own container) and by a session
// started on another server from a snapshot. The source is only read.
import { BerthError } from '../../../shared/errors'
import type { Engine } from '../engines/engine'
import type { ProgressReporter } from '../progress'
import { containerSpec, volumeName } from '../sessions/container-spec'
import { ensureWorkspaceVolume } from '../sessions/session-container'
import type { SessionRow } from '../store/sessions-repo'
import { carryImage, imageLayers, layersOn } from './image-carrier'
import { tagForSession } from './restore'
import { removeVolume } from './server-steps'
import type { Part, StagedPart, Transfer } from './transfer'

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
  /** the source container whose writable layer travels on top of `image` (root helper needed) */
  upperFrom?: string | undefined
  /** where the workspace's files come from: a volume's folder (root) or a container's /workspace */
  workspaceFrom: { volume: string } | { container: string }
  /** a memory checkpoint to place in the new container under the same name */
  checkpointFrom?: { container: string; name: string } | undefined
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
    const have = await layersOn(target)
    const carried = await carryImage({ source, target, ref: sourceId, progress, have })
    bytes += carried.bytes
    layersSent = carried.layersSent
    layersSkipped = carried.layersSkipped
  }
  const image = await tagForSession(target, req.homeId, req.row.id, sourceId)

  // 2. the parts, staged on the source (an earlier try's are reused), then relayed
  const parts: Array<{ part: Part; file: string; into: (containerId: string) => Part }> = []
  if (req.upperFrom) parts.push({ part: { kind: 'upper', what: req.upperFrom }, file: 'upper.tar', into: (c) => ({ kind: 'upper', what: c }) })
  if ('volume' in req.workspaceFrom) {
    parts.push({ part: { kind: 'volume', what: req.workspaceFrom.volume }, file: 'volume.tar', into: () => ({ kind: 'volume', what: volumeName(req.row.id) }) })
  } else {
    parts.push({ part: { kind: 'workspace', what: req.workspaceFrom.container }, file: 'workspace.tar', into: (c) => ({ kind: 'workspace', what: c }) })
  }
  if (req.checkpointFrom) {
    const cp = req.checkpointFrom
    parts.push({ part: { kind: 'checkpoint', what: cp.container, name: cp.name }, file: 'checkpoint.tar', into: (c) => ({ kind: 'checkpoint', what: c, name: cp.name }) })
  }
  progress?.stage('stage', `preparing ${parts.map((p) => p.part.kind).join(', ')} on ${source.name}`)
  const staged: StagedPart[] = []
  for (const p of parts) staged.push(await transfer.pack(source, req.key, p.part, p.file))
  const total = staged.reduce((n, s) => n + s.bytes, 0)
  const targetDir = await transfer.stage.dir(target, req.key)
  progress?.stage('send', `sending ${parts.length} part${parts.length === 1 ? '' : 's'} to ${target.name}`, total)
  let offset = 0
  let resumedBytes = 0
  for (let i = 0; i < staged.length; i++) {
    const s = staged[i]!
    const r = await transfer.relay(source, s, target, `${targetDir}/${parts[i]!.file}`, progress, s.part.kind === 'checkpoint' ? 'memory checkpoint' : s.part.kind === 'upper' ? 'writable layer' : 'workspace', offset, total)
    bytes += r.sent
    resumedBytes += r.resumed
    offset += s.bytes
  }

  // 3. the container on the target, made as at creation, its parts put in place before it starts
  progress?.stage('apply', `making the session's container on ${target.name}`)
  await removeVolume(target, volumeName(req.row.id))
  await ensureWorkspaceVolume(target, req.row.id, req.homeId)
  const created = await target.docker.createContainer(
    containerSpec({ id: req.row.id, route: req.row.route, image, env: req.env, home: req.homeId, secrets: req.row.secrets.length > 0 }),
  )
  for (let i = 0; i < parts.length; i++) await transfer.unpack(target, parts[i]!.into(created.id), `${targetDir}/${parts[i]!.file}`)
  return { containerId: created.id, image, bytes, resumedBytes, layersSent, layersSkipped }
}
