// Native notifications when background work finishes or fails: a pause, a resume, a move.
import { Notification } from 'electron'
import type { SessionState } from '../../shared/models'
import type { Core } from '../core/core'

export function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body, silent: true }).show()
}

/** What a state change is worth telling the user about, or undefined (pure: unit-tested). */
export function describeTransition(name: string, from: SessionState | undefined, to: SessionState, failure: string | null): { title: string; body: string } | undefined {
  if (!from || from === to) return undefined
  if (to === 'failed') return { title: `${name} failed`, body: failure ?? `${from} did not complete` }
  if (from === 'pausing' && to === 'paused') return { title: `${name} paused`, body: 'Its work is kept; resume it when you need it.' }
  if (from === 'resuming' && to === 'running') return { title: `${name} resumed`, body: 'The session runs again.' }
  if (from === 'moving' && (to === 'paused' || to === 'resuming' || to === 'running')) return { title: `${name} moved`, body: 'The session arrived on its new server.' }
  return undefined
}

/** Notifies only while the window is not in front: the window shows the same change itself. */
export function watchBackgroundWork(core: Core, windowFocused: () => boolean): () => void {
  const last = new Map<string, SessionState>()
  for (const s of core.sessions.list({})) last.set(s.id, s.state)
  return core.bus.onContract((name, payload) => {
    if (name !== 'session.changed') return
    const s = payload as import('../../shared/models').Session
    const before = last.get(s.id)
    last.set(s.id, s.state)
    const note = describeTransition(s.name, before, s.state, s.failure)
    if (note && !windowFocused()) notify(note.title, note.body)
  })
}
