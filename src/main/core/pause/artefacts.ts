// A pause's artefacts on its server (a checkpoint, a committed image) live until nothing needs them:
// by default until the session runs again, unless another domain (snapshots) retains them.
import { oneSentence } from '../../../shared/errors'
import type { Checkpoints } from '../checkpoints/checkpoints'
import type { EngineRegistry } from '../engines/engine-registry'
import type { Lifecycle } from '../sessions/lifecycle'
import { nowIso } from '../store/database'
import type { PauseRow, PausesRepo } from '../store/pauses-repo'
import type { SessionsRepo } from '../store/sessions-repo'
import { isNotFound } from '../engines/docker-errors'
import { shownName } from './pause-context'

export class PauseArtefacts {
  /** Whether a pause's checkpoint and image are kept after the session resumed or finished. */
  readonly retain: Array<(pause: PauseRow) => boolean> = []

  constructor(
    private readonly d: { engines: EngineRegistry; checkpoints: Checkpoints; pauses: PausesRepo; sessions: SessionsRepo; lifecycle: Lifecycle; busy: (id: string) => boolean },
  ) {}

  /** After a resume, a little later: a sandbox that dies right after its restore keeps its checkpoint. */
  removeSoon(pause: PauseRow, ms = 2000): void {
    setTimeout(() => void this.removeAfterResume(pause), ms).unref()
  }

  private async removeAfterResume(pause: PauseRow): Promise<void> {
    const row = this.d.sessions.get(pause.sessionId)
    if (row?.state !== 'running' || this.d.busy(pause.sessionId)) return
    const info = await this.d.engines
      .get(pause.server)
      .docker.getContainer(pause.containerId)
      .inspect()
      .catch(() => null)
    if (!info?.State.Running) {
      this.d.lifecycle.note(pause.sessionId, 'restore-check', { snapshot: shownName(pause), outcome: 'the container stopped right after its resume; its checkpoint is kept' })
      return
    }
    await this.remove(pause)
  }

  /** Removes a pause's checkpoint and image from its server, unless something still needs them. */
  async remove(pause: PauseRow, containerGone = false): Promise<void> {
    if (pause.removedAt || (!pause.checkpoint && !pause.image)) return
    if (this.retain.some((keep) => keep(pause))) return
    try {
      if (pause.checkpoint && !containerGone) await this.d.checkpoints.remove(pause.server, pause.containerId, pause.checkpoint)
      if (pause.image) {
        await this.d.engines
          .get(pause.server)
          .docker.getImage(pause.image)
          .remove()
          .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e)))
      }
      this.d.pauses.update(pause.sessionId, pause.seq, { removedAt: nowIso() })
    } catch (e) {
      this.d.lifecycle.note(pause.sessionId, 'cleanup-failed', { snapshot: shownName(pause), reason: oneSentence((e as Error).message) })
    }
  }
}
