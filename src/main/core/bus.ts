// The core's event bus: contract events go out through every door; internal signals (activity)
// let one domain react to another without importing it.
import { EventEmitter } from 'node:events'
import type { EventName, EventPayload } from '../../shared/contract'
import type { PauseRow } from './store/pauses-repo'
import type { SessionRow } from './store/sessions-repo'
import type { SnapshotRow } from './store/snapshots-repo'

export interface InternalEvents {
  /** something a person or a tool did in a session (terminal input, ssh traffic, a command) */
  activity: { sessionId: string; signal: string }
  /** a foreground command started or ended in a session */
  foreground: { sessionId: string; delta: 1 | -1 }
  /** a pause became durable (committed before anyone hears so); snapshots list its checkpoint */
  'pause.durable': { session: SessionRow; pause: PauseRow }
  /** a periodic seal of a running session is durable (replicas copy it) */
  'session.sealed': { session: SessionRow; snapshot: SnapshotRow }
}

export class CoreBus {
  private readonly emitter = new EventEmitter()

  constructor() {
    this.emitter.setMaxListeners(0)
  }

  emit<N extends EventName>(name: N, payload: EventPayload<N>): void {
    this.emitter.emit('contract', name, payload)
  }

  onContract(listener: <N extends EventName>(name: N, payload: EventPayload<N>) => void): () => void {
    this.emitter.on('contract', listener)
    return () => this.emitter.off('contract', listener)
  }

  signal<K extends keyof InternalEvents>(name: K, payload: InternalEvents[K]): void {
    this.emitter.emit(`internal:${name}`, payload)
  }

  on<K extends keyof InternalEvents>(name: K, listener: (payload: InternalEvents[K]) => void): () => void {
    this.emitter.on(`internal:${name}`, listener)
    return () => this.emitter.off(`internal:${name}`, listener)
  }
}
