// What a user can do with a snapshot, from the list and from the browser: a new session or a fork
// from it, a test restore, a rewind of its session (the state now kept first), a delete.
import type { Snapshot } from '../../../../shared/models'
import type { MenuItem } from '../../components/Menu'
import { bytes } from '../../lib/format'
import type { AppStores } from '../../stores/app-stores'
import { askThenRun } from '../../stores/ui'

export const REASONS: Record<string, string> = {
  named: 'named',
  pause: 'pause',
  seal: 'seal',
  'pre-rewind': 'before a rewind',
  fork: 'fork',
  move: 'move',
  restart: 'restart',
}
export const reasonOf = (s: Snapshot) => REASONS[s.reason ?? ''] ?? (s.auto ? 'automatic' : 'named')

/** How a session came back from a snapshot: with its memory, or from disk and why. */
export const restoredHow = (r: { memory: boolean; note?: string | null | undefined }) => (r.memory ? 'with its memory' : `from disk${r.note ? ` (${r.note})` : ''}`)

export async function newSessionFrom(stores: AppStores, snap: Snapshot, count = 1): Promise<void> {
  const { ui } = stores
  await ui.getState().askFor({
    title: count > 1 ? `Fork ${snap.id}` : `New session from ${snap.id}`,
    body:
      snap.kind === 'memory+disk'
        ? 'Its processes continue from the snapshot where the server can restore memory; otherwise it boots from the snapshot’s disk, and says so.'
        : 'It boots from the snapshot’s disk.',
    fields: [
      ...(count > 1 ? [{ name: 'count', label: 'How many sessions', type: 'number' as const, initial: '2', check: (v: string) => (/^\d+$/.test(v) && +v >= 1 && +v <= 16 ? null : 'between 1 and 16 sessions') }] : []),
      { name: 'server', label: 'Server', initial: snap.server, hint: `${stores.servers.getState().list.map((s) => s.name).join(', ')}; the snapshot is carried there if it lives elsewhere`, check: (v) => (stores.servers.getState().list.some((s) => s.name === v) ? null : `there is no server named ${v}`) },
      { name: 'name', label: 'Name', placeholder: 'optional', check: (v) => (!v || /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v) ? null : 'a session name is letters, digits, dot, dash and underscore') },
    ],
    confirmLabel: count > 1 ? 'Fork' : 'Create the session',
    // the dialog stays open and shows the core's progress until the session runs (or why not)
    work: async (values, note) => {
      const n = Number(values.count ?? 1)
      const made: string[] = []
      const failed: string[] = []
      for (let i = 1; i <= n; i++) {
        const name = values.name ? (n > 1 ? `${values.name}-${i}` : values.name) : undefined
        const which = n > 1 ? `session ${i} of ${n}: ` : ''
        note(`${which}starting from ${snap.id}…`)
        try {
          const s = await stores.snapshots.getState().createFrom(snap, { server: values.server, name }, (p) => note(n > 1 ? { ...p, message: `${which}${p.message}` } : p))
          made.push(s.name)
          if (n === 1) {
            const from = s.origin ? restoredHow(s.origin) : ''
            ui.getState().info(`${s.name} started from ${snap.id} ${from}.`.replace(/ \./, '.'))
            ui.getState().navigate({ screen: 'session', id: s.id })
          }
        } catch (e) {
          // one session: the dialog says why and keeps the values; several: the others still start
          if (n === 1) throw e
          failed.push(e instanceof Error ? e.message : String(e))
        }
      }
      if (n > 1 && made.length) ui.getState().info(`${made.length} of ${n} sessions started from ${snap.id}: ${made.join(', ')}.`)
      if (failed.length) ui.getState().fail(new Error(`${failed.length} of ${n} sessions did not start: ${failed.join('; ')}`))
    },
  })
}

/** Why a snapshot cannot be deleted now (sessions still run from it), or null. */
export function keptBecause(snap: Snapshot, sessions: string[]): string | null {
  if (sessions.length) return `${sessions.join(', ')} ${sessions.length === 1 ? 'was' : 'were'} made from it and still ${sessions.length === 1 ? 'runs' : 'run'} on its disk`
  return null
}

export function actionsFor(stores: AppStores, snap: Snapshot, parentLive: boolean, kept: string | null = null): MenuItem[] {
  const { ui, snapshots } = stores
  const items: MenuItem[] = [
    { label: 'Fork into several sessions…', run: () => void newSessionFrom(stores, snap, 2) },
    {
      label: 'Test that it restores',
      run: () =>
        void snapshots
          .getState()
          .test(snap.id)
          .then(
            (r) => {
              void stores.browser.getState().reload()
              ui.getState().info(`${snap.id} restores ${restoredHow(r)} (${(r.ms / 1000).toFixed(1)} s).`)
            },
            (e: unknown) => ui.getState().fail(e),
          ),
    },
  ]
  if (snap.sessionId && parentLive)
    items.push({
      label: 'Rewind its session to it…',
      run: () =>
        askThenRun(
          ui,
          {
            title: `Rewind ${snap.sessionName ?? 'the session'} to ${snap.id}?`,
            body: 'The session comes back to this snapshot; its state now is kept as a snapshot first, so nothing is lost.',
            confirmLabel: 'Rewind',
          },
          async () => {
            const r = await snapshots.getState().rewind(snap.sessionId!, snap.id)
            void stores.browser.getState().reload()
            return `${r.session.name} is back at ${r.to.id} ${restoredHow(r)}; its state before is kept as ${r.kept.id}.`
          },
        ),
    })
  items.push({
    label: 'Delete…',
    danger: true,
    run: () =>
      kept ? ui.getState().info(`${snap.id} is kept: ${kept}. Finish those sessions first.`) : askThenRun(
        ui,
        {
          title: `Delete ${snap.id}?`,
          body: `What it holds on ${snap.server} (${bytes(snap.sizeBytes)}) is removed. Sessions made from it keep running.`,
          confirmLabel: 'Delete',
          danger: true,
        },
        async () => {
          await snapshots.getState().remove(snap.id)
          void stores.browser.getState().reload()
          return `${snap.id} deleted.`
        },
      ),
  })
  return items
}
