// After a crash, every session left in a transient state is brought to a consistent one: the
// events log says what was under way, the engine says what is true.
import type { SessionState } from '../../../shared/models'
import { oneSentence } from '../../../shared/errors'
import type { EngineRegistry } from '../engines/engine-registry'
import type { SessionRow, SessionsRepo } from '../store/sessions-repo'
import type { Lifecycle } from './lifecycle'
import { TRANSIENT } from './lifecycle'
import { removeContainerAndVolume } from './session-service'
import { containerOf } from './container-spec'

export type Recoverer = (row: SessionRow) => Promise<void>

export class Recovery {
  private readonly recoverers = new Map<SessionState, Recoverer>()

  constructor(
    private readonly sessions: SessionsRepo,
    private readonly engines: EngineRegistry,
    private readonly lifecycle: Lifecycle,
    private readonly finish: (row: SessionRow) => Promise<SessionRow>,
  ) {
    this.recoverers.set('creating', (row) => this.recoverCreating(row))
    this.recoverers.set('finishing', async (row) => void (await this.finish(row)))
  }

  /** Later domains (pause, move) register how to finish or roll back their own transitions. */
  register(state: SessionState, recoverer: Recoverer): void {
    this.recoverers.set(state, recoverer)
  }

  /** Runs once at start-up; servers that cannot be reached are retried on the next start. */
  async run(): Promise<void> {
    const stuck = this.sessions.inStates(TRANSIENT)
    await Promise.all(
      stuck.map(async (row) => {
        const recover = this.recoverers.get(row.state) ?? ((r: SessionRow) => this.recoverByTruth(r))
        try {
          this.lifecycle.note(row.id, 'recovery', { state: row.state })
          await recover(row)
        } catch (e) {
          this.lifecycle.note(row.id, 'recovery-failed', { state: row.state, reason: oneSentence((e as Error).message) })
        }
      }),
    )
  }

  /** An interrupted create: nothing the user made exists yet, so it is removed and marked failed. */
  private async recoverCreating(row: SessionRow): Promise<void> {
    const engine = this.engines.get(row.server)
    await removeContainerAndVolume(engine.docker, row.id)
    this.lifecycle.transition(row.id, {
      from: ['creating'],
      to: 'failed',
      verb: 'recover',
      patch: { failure: 'Berth stopped while creating this session; nothing was kept', containerId: null },
    })
  }

  /** Fallback: a running container means running; anything else is failed with the reason. */
  private async recoverByTruth(row: SessionRow): Promise<void> {
    const engine = this.engines.get(row.server)
    const info = await engine.docker
      .getContainer(containerOf(row))
      .inspect()
      .catch(() => null)
    if (info?.State?.Running && !info.State.Paused) {
      this.lifecycle.transition(row.id, { from: [row.state], to: 'running', verb: 'recover', patch: { containerId: info.Id } })
    } else {
      this.lifecycle.transition(row.id, {
        from: [row.state],
        to: 'failed',
        verb: 'recover',
        patch: { failure: `Berth stopped while the session was ${row.state}; the container is ${info ? info.State.Status : 'gone'}` },
      })
    }
  }
}
