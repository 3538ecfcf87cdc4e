// Move, second step: the session's parts travel to the target and its container is made there. The
// source is only read (a committed image at most); a failed try removes what it made on the target.
import type { Engine } from '../engines/engine'
import type { ProgressReporter } from '../progress'
import { volumeName, SESSION_REPO, sessionImage } from '../engines/docker-names'
import { removeSessionContainer } from '../sessions/session-container'
import type { SessionRow } from '../store/sessions-repo'
import { carryContainer, type CarryOutcome } from './carry'
import type { MovePlan } from './move-plan'
import { removeImageTag, removeVolume } from './server-steps'
import type { SnapshotService } from './snapshot-service'
import type { Transfer } from './transfer'

/** The image the target's container is made from: without the root helper, one holding the writable layer. */
export async function sourceImage(svc: SnapshotService, source: Engine, row: SessionRow, plan: MovePlan, progress: ProgressReporter): Promise<string> {
  if (plan.root) return plan.info.Image
  // without the root helper the writable layer travels inside a committed image
  progress.stage('commit', `committing ${row.name}'s writable layer on ${row.server}`)
  const tag = sessionImage(svc.ctx.homeId, row.id)
  await source.docker.getContainer(plan.containerId).commit({ repo: SESSION_REPO, tag: tag.slice(SESSION_REPO.length + 1), pause: false, comment: `Berth move of ${row.id}` })
  return tag
}

export async function carryMove(
  svc: SnapshotService,
  transfer: Transfer,
  move: { source: Engine; target: Engine; row: SessionRow; plan: MovePlan; image: string; progress: ProgressReporter },
): Promise<CarryOutcome> {
  const { source, target, row, plan, image, progress } = move
  return await carryContainer(transfer, {
    source,
    target,
    homeId: svc.ctx.homeId,
    key: plan.key,
    row,
    env: row.env,
    image,
    root: plan.root,
    upperFrom: plan.root ? plan.info.Id : undefined,
    workspaceFrom: plan.root ? { volume: volumeName(row.id) } : { container: plan.info.Id },
    checkpointFrom: plan.memory.carry && plan.memory.checkpoint ? plan.memory.checkpoint : undefined,
    progress,
  })
}

/** A failed try: whatever was made on the target goes (its staged parts stay for the next try). */
export async function undoTarget(svc: SnapshotService, target: Engine, row: SessionRow): Promise<void> {
  // the connection may just have been cut: a second try runs on a new one
  for (let attempt = 0; ; attempt++) {
    try {
      await target.ready()
      await removeSessionContainer(target, row.id)
      await removeVolume(target, volumeName(row.id))
      await removeImageTag(target, sessionImage(svc.ctx.homeId, row.id)).catch(() => undefined)
      return
    } catch (e) {
      if (attempt >= 2) throw e
      await new Promise((r) => setTimeout(r, 300))
    }
  }
}
