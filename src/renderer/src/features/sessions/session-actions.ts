// The verbs a session offers in its state, and what each says when it is done: the result names
// what really happened (the pause mode, whether memory came along, why not), never more.
import type { Server, SessionSummary } from '../../../../shared/models'
import { CallError } from '../../api/client'
import type { MenuItem } from '../../components/Menu'
import { bytes } from '../../lib/format'
import type { AppStores } from '../../stores/app-stores'
import { askThenRun } from '../../stores/ui'

export const isLive = (s: SessionSummary) => s.state !== 'finished'

/** Whether the session holds work never saved to its workspace (unknown until asked). */
export function unsavedWork(stores: AppStores, s: SessionSummary): boolean | undefined {
  if (!s.workspace || s.state === 'finished') return false
  const status = stores.workspace.getState().byId[s.id]?.status
  return status ? !status.saved : undefined
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

export async function pauseSession(stores: AppStores, s: SessionSummary, memory = true): Promise<void> {
  const { ui } = stores
  try {
    const r = await stores.sessions.getState().pause(s.id, memory)
    if (!r.paused) return ui.getState().info(`${s.name} was already paused.`)
    const kept = r.mode === 'memory' ? 'its memory is kept' : r.mode === 'frozen' ? 'frozen in memory on its server, with its disk saved' : 'its disk is saved; it boots fresh on resume'
    ui.getState().info(`${s.name} paused in ${seconds(r.ms)}: ${kept}${r.fallback ? ` (${r.fallback})` : ''}.`)
  } catch (e) {
    ui.getState().fail(e, () => void pauseSession(stores, s, memory))
  }
}

export async function resumeSession(stores: AppStores, s: SessionSummary, on?: string): Promise<void> {
  const { ui } = stores
  try {
    if (!on || on === s.server) {
      const r = await stores.sessions.getState().resume(s.id)
      if (!r.resumed) return ui.getState().info(`${s.name} was already running.`)
      const how = r.mode === 'memory' ? 'its processes continued' : r.mode === 'frozen' ? 'thawed' : 'booted from its disk'
      return ui.getState().info(`${s.name} resumed in ${seconds(r.ms)}: ${how}${r.fallback ? ` (${r.fallback})` : ''}${r.note ? `; ${r.note}` : ''}.`)
    }
    const r = await stores.sessions.getState().move(s.id, on, true)
    const memory = r.memory ? 'its memory came along' : `it booted from disk${r.note ? ` (${r.note})` : ''}`
    ui.getState().info(`${s.name} moved to ${r.to} (${bytes(r.bytes)} in ${seconds(r.seconds * 1000)}) and resumed: ${memory}.`)
  } catch (e) {
    ui.getState().fail(e, () => void resumeSession(stores, s, on))
  }
}

export async function moveSession(stores: AppStores, s: SessionSummary, to: string): Promise<void> {
  const { ui } = stores
  try {
    const r = await stores.sessions.getState().move(s.id, to, false)
    ui.getState().info(`${s.name} moved to ${r.to}: ${bytes(r.bytes)} in ${seconds(r.seconds * 1000)}, ${r.layersSent} layer(s) sent and ${r.layersSkipped} already there; it stays paused.`)
  } catch (e) {
    ui.getState().fail(e, () => void moveSession(stores, s, to))
  }
}

export async function saveSession(stores: AppStores, s: SessionSummary): Promise<void> {
  const { ui } = stores
  const values = await ui.getState().askFor({
    title: `Save ${s.name}`,
    body: `Commits the work in /workspace on ${s.workspace?.branch} and merges it into main of ${s.workspace?.dir}.`,
    fields: [{ name: 'message', label: 'Message', placeholder: 'optional', initial: '' }],
    confirmLabel: 'Save',
  })
  if (!values) return
  try {
    const r = await stores.workspace.getState().save(s.id, values.message)
    ui.getState().info(
      r.changed
        ? `${s.name} saved: ${r.files.length} file(s) merged into main of ${r.dir}${r.mainMoved ? ' (main had moved: merged first)' : ''}.`
        : `${s.name} had nothing new to save.`,
    )
  } catch (e) {
    ui.getState().fail(e)
  }
}

export async function restartSession(stores: AppStores, s: SessionSummary): Promise<void> {
  const { ui } = stores
  await askThenRun(
    ui,
    {
      title: `Restart ${s.name}?`,
      body: 'The container is made anew from the session: its files, views and route stay; the processes running now stop.',
      confirmLabel: 'Restart',
    },
    async () => {
      await stores.sessions.getState().restart(s.id)
      return `${s.name} restarted.`
    },
  )
}

export async function forkSession(stores: AppStores, s: SessionSummary): Promise<void> {
  const { ui } = stores
  const values = await ui.getState().askFor({
    title: `Fork ${s.name}`,
    body: 'Independent sessions from one capture of this one, with its memory where the server allows.',
    fields: [
      { name: 'count', label: 'How many', type: 'number', initial: '1', check: (v) => (/^\d+$/.test(v) && +v >= 1 && +v <= 16 ? null : 'between 1 and 16 forks') },
      { name: 'name', label: 'Name', placeholder: `${s.name}-fork`, check: (v) => (!v || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? null : 'a session name is letters, digits, dot, dash and underscore') },
    ],
    confirmLabel: 'Fork',
  })
  if (!values) return
  try {
    const r = await stores.sessions.getState().fork(s.id, Number(values.count), values.name)
    const failed = r.forks.filter((f) => !f.ok)
    if (failed.length === 0) ui.getState().info(`${r.succeeded} fork(s) of ${s.name} are running.`)
    else ui.getState().fail(new Error(`${r.succeeded} fork(s) of ${s.name} run; ${failed.length} failed: ${failed.map((f) => (f.ok ? '' : f.error.message)).join('; ')}`))
  } catch (e) {
    ui.getState().fail(e)
  }
}

export async function snapshotSession(stores: AppStores, s: SessionSummary): Promise<void> {
  const { ui } = stores
  const values = await ui.getState().askFor({
    title: `Snapshot ${s.name}`,
    fields: [{ name: 'name', label: 'Name', hint: 'taking the same name again makes a new version (NAME:v2…)', placeholder: s.name, check: (v) => (!v || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? null : 'a snapshot name is letters, digits, dot, dash and underscore') }],
    confirmLabel: 'Take the snapshot',
  })
  if (!values) return
  try {
    const snap = await stores.snapshots.getState().take(s.id, values.name)
    ui.getState().info(`Snapshot ${snap.id} taken (${snap.kind}, ${bytes(snap.sizeBytes)}).`)
  } catch (e) {
    ui.getState().fail(e)
  }
}

/** Finish, after a confirmation; unsaved work needs the name typed (and force). */
export async function finishSession(stores: AppStores, s: SessionSummary): Promise<void> {
  const { ui, sessions } = stores
  const unsaved = unsavedWork(stores, s) === true
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
    await sessions.getState().finish(s.id, unsaved)
    ui.getState().info(`${s.name} finished.`)
  } catch (e) {
    // the core refuses when it finds unsaved changes: the user decides, by typing the name
    if (e instanceof CallError && e.code === 'refused' && /unsaved/.test(e.message)) {
      const force = await ui.getState().ask({
        title: `${s.name} has unsaved work`,
        body: `${e.message.replace(/;.*$/, '')}. Finishing anyway loses it; save it first to keep it.`,
        confirmLabel: 'Finish and lose it',
        danger: true,
        typeToConfirm: s.name,
      })
      if (!force) return
      try {
        await sessions.getState().finish(s.id, true)
        ui.getState().info(`${s.name} finished.`)
      } catch (e2) {
        ui.getState().fail(e2)
      }
      return
    }
    ui.getState().fail(e, () => void finishSession(stores, s))
  }
}

export interface SessionActions {
  /** the verb the state calls for: pause a running session, resume a paused one */
  primary: MenuItem | null
  more: MenuItem[]
}

export function sessionActions(stores: AppStores, s: SessionSummary, servers: Server[]): SessionActions {
  const others = servers.filter((x) => x.name !== s.server && x.state !== 'disconnected')
  const more: MenuItem[] = []
  let primary: MenuItem | null = null
  const st = s.state
  if (st === 'running') {
    primary = { label: 'Pause', run: () => pauseSession(stores, s) }
    more.push({ label: 'Pause to disk only', run: () => void pauseSession(stores, s, false) })
  }
  if (st === 'paused') {
    primary = { label: 'Resume', run: () => resumeSession(stores, s) }
    for (const o of others) more.push({ label: `Resume on ${o.name}`, run: () => void resumeSession(stores, s, o.name) })
    for (const o of others) more.push({ label: `Move to ${o.name}`, run: () => void moveSession(stores, s, o.name) })
  }
  if (st === 'failed') primary = { label: 'Resume', run: () => resumeSession(stores, s) }
  if (s.workspace && (st === 'running' || st === 'paused')) more.push({ label: 'Save to the workspace', run: () => void saveSession(stores, s) })
  if (st === 'running' || st === 'paused') {
    more.push({ label: 'Snapshot…', run: () => void snapshotSession(stores, s) })
    more.push({ label: 'Fork…', run: () => void forkSession(stores, s) })
  }
  if (st === 'running' || st === 'failed') more.push({ label: 'Restart', run: () => void restartSession(stores, s) })
  if (st !== 'finished') more.push({ label: 'Checkpoint history', run: () => stores.ui.getState().navigate({ screen: 'snapshots', session: s.id }) })
  if (st === 'running' || st === 'paused' || st === 'failed') more.push({ label: 'Finish…', danger: true, run: () => void finishSession(stores, s) })
  return { primary, more }
}
