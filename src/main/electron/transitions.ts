// Which state changes of background work deserve a native notification (pure: unit-tested).
import type { SessionState } from '../../shared/models'

/** What a state change is worth telling the user about, or undefined (pure: unit-tested). */
export function describeTransition(name: string, from: SessionState | undefined, to: SessionState, failure: string | null): { title: string; body: string } | undefined {
  if (!from || from === to) return undefined
  if (to === 'failed') return { title: `${name} failed`, body: failure ?? `${from} did not complete` }
  if (from === 'pausing' && to === 'paused') return { title: `${name} paused`, body: 'Its work is kept; resume it when you need it.' }
  if (from === 'resuming' && to === 'running') return { title: `${name} resumed`, body: 'The session runs again.' }
  if (from === 'moving' && (to === 'paused' || to === 'resuming' || to === 'running')) return { title: `${name} moved`, body: 'The session arrived on its new server.' }
  return undefined
}
