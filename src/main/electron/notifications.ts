// Native notifications when background work finishes or fails: a pause, a resume, a move.
import { Notification } from 'electron'
import type { Core } from '../core/core'
import type { SessionState } from '../../shared/models'
import { describeTransition } from './transitions'

export function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body, silent: true }).show()
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
