// The verbs a session offers right now, from its state and from what this build's contract has
// (pause, resume, save, restart and fork arrive with their features).
import type { Session } from '../../../../shared/models'
import { CallError } from '../../api/client'
import type { AppStores } from '../../stores/app-stores'

export const isLive = (s: Session) => s.state !== 'finished'

/** Work that exists only in the session: a workspace that was never saved. */
export const hasUnsavedWork = (s: Session) => !!s.workspace && !s.savedAt && s.state !== 'finished'

/** Finish, after a confirmation; unsaved work needs the name typed (and force). */
export async function finishSession(stores: AppStores, s: Session): Promise<void> {
  const { ui, sessions } = stores
  const unsaved = hasUnsavedWork(s)
  const ok = await ui.getState().ask({
    title: `Finish ${s.name}?`,
    body: unsaved
      ? `Its container is destroyed and the work in /workspace was never saved back to ${s.workspace?.dir}. This cannot be undone.`
      : 'Its container is destroyed; the session stays in the history with its times.',
    confirmLabel: 'Finish',
    danger: true,
    ...(unsaved ? { typeToConfirm: s.name } : {}),
  })
  if (!ok) return
  try {
    await sessions.getState().finish(s.id)
    ui.getState().info(`${s.name} finished.`)
  } catch (e) {
    // the core refuses when it knows of unsaved changes: the user decides, by typing the name
    if (e instanceof CallError && e.code === 'refused' && !/finished/.test(e.message)) {
      const force = await ui.getState().ask({
        title: `${s.name} has unsaved work`,
        body: `${e.message} Finishing anyway loses it.`,
        confirmLabel: 'Finish and lose it',
        danger: true,
        typeToConfirm: s.name,
      })
      if (!force) return
      try {
        await stores.client.call('session.finish', { id: s.id, force: true })
        ui.getState().info(`${s.name} finished.`)
      } catch (e2) {
        ui.getState().fail(e2)
      }
      return
    }
    ui.getState().fail(e, () => void finishSession(stores, s))
  }
}
