import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { CallError } from '../../api/client'
import { afterEach, describe, expect, it } from 'vitest'
import type { Snapshot } from '../../../../shared/models'
import { bootApp, closeApp } from '../../test/boot-app'
import { FakeClient, session } from '../../test/fake-client'

const web = session({ name: 'web' })

function snap(over: Partial<Snapshot>): Snapshot {
  return { id: 'x:v1', name: 'x', version: 1, kind: 'memory+disk', sessionId: web.id, server: 'local', sizeBytes: 42 * 1024 * 1024, parentSnapshot: null, createdAt: new Date(Date.now() - 3600_000).toISOString(), auto: false, testRestored: false, tags: [], reason: 'named', sessionName: 'web', ...over }
}

const boot = (client: FakeClient, hash: string) => bootApp(client.handle('session.list', () => [web]), hash)

afterEach(closeApp)

describe('the snapshot browser', () => {
  it('lists snapshots with their kind, size, server, parent and age, a page at a time', async () => {
    const first = [snap({ id: 'nightly:v2', name: 'nightly', version: 2, parentSnapshot: 'nightly:v1', tags: ['release'], pinned: true }), snap({ id: 'p-1:v1', kind: 'disk', auto: true, reason: 'pause' })]
    const client = new FakeClient().handle('snapshot.list', (a) => (a.next ? { items: [snap({ id: 'old:v1', name: 'old' })], next: null } : { items: first, next: 'tok1' }))
    boot(client, '#/snapshots')
    const table = await screen.findByRole('table', { name: 'snapshots' })
    const row = within(table).getByText('nightly:v2').closest('tr')!
    expect(row.textContent).toContain('memory+disk')
    expect(row.textContent).toContain('42.0 MiB')
    expect(row.textContent).toContain('nightly:v1')
    expect(row.textContent).toContain('release')
    expect(row.textContent).toContain('pinned')
    expect(row.textContent).toContain('1h')
    expect(within(table).getByText('p-1:v1').closest('tr')!.textContent).toContain('pause')
    fireEvent.click(screen.getByRole('button', { name: 'Show older snapshots' }))
    expect(await within(table).findByText('old:v1')).toBeTruthy()
    expect(client.callsOf('snapshot.list')[1]).toMatchObject({ next: 'tok1' })
    // leaving out automatic checkpoints asks the core again
    fireEvent.click(screen.getByLabelText('automatic checkpoints'))
    await waitFor(() => expect(client.callsOf('snapshot.list').at(-1)).toMatchObject({ auto: false }))
  })

  it('starts a session from a snapshot on a chosen server and opens it', async () => {
    const made = session({ name: 'from-nightly', origin: { verb: 'create', snapshot: 'nightly:v2', memory: true, note: null, at: new Date().toISOString() } })
    const client = new FakeClient().handle('snapshot.list', () => ({ items: [snap({ id: 'nightly:v2' })], next: null })).handle('session.create', () => made).fail('view.list', 'conflict', 'x')
    const stores = boot(client, '#/snapshots')
    fireEvent.click(await screen.findByRole('button', { name: 'New session' }))
    const dialog = await screen.findByRole('dialog', { name: 'New session from nightly:v2' })
    fireEvent.change(within(dialog).getByLabelText('Server'), { target: { value: 'nowhere' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the session' }))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('there is no server named nowhere')
    fireEvent.change(within(dialog).getByLabelText('Server'), { target: { value: 'local' } })
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'from-nightly' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the session' }))
    await waitFor(() => expect(client.callsOf('session.create')[0]).toMatchObject({ from: 'nightly:v2', server: 'local', name: 'from-nightly' }))
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: made.id }))
    expect(await screen.findByText('from-nightly started from nightly:v2 with its memory.')).toBeTruthy()
  })

  it('shows the creation from a snapshot in the dialog as it goes, and says in place why it failed', async () => {
    const made = session({ name: 'carried', origin: { verb: 'create', snapshot: 'nightly:v2', memory: false, note: null, at: new Date().toISOString() } })
    let answer: (s: typeof made) => void = () => undefined
    let refuse: (e: Error) => void = () => undefined
    const client = new FakeClient()
      .handle('snapshot.list', () => ({ items: [snap({ id: 'nightly:v2' })], next: null }))
      .handle('session.create', () => new Promise((resolve, reject) => ((answer = resolve), (refuse = reject))))
      .fail('view.list', 'conflict', 'x')
    const stores = boot(client, '#/snapshots')
    fireEvent.click(await screen.findByRole('button', { name: 'New session' }))
    const dialog = await screen.findByRole('dialog', { name: 'New session from nightly:v2' })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the session' }))
    // at once a sentence, then the core's own progress for this call (another call's is not shown)
    expect((await within(dialog).findByRole('status')).textContent).toContain('starting from nightly:v2')
    const op = client.callsOf('session.create')[0].op as string
    const p = { op, stage: 'carry', message: 'carrying nightly:v2 to office', bytes: 30 * 1024 * 1024, total: 120 * 1024 * 1024, rate: null, done: false, sessionId: made.id, server: 'office' }
    act(() => client.emit('progress', { ...p, op: 'someone-else', message: 'not mine' }))
    act(() => client.emit('progress', p))
    const bar = await within(dialog).findByRole('progressbar')
    expect(bar.getAttribute('aria-valuetext')).toBe('carrying nightly:v2 to office — 25% · 30.0 MiB of 120 MiB')
    expect(within(dialog).getByRole('button', { name: 'Create the session' }).hasAttribute('disabled')).toBe(true)
    // a failure: said in the dialog, which stays open with its values
    act(() => refuse(new CallError('engine', 'the server ran out of disk')))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('The server ran out of disk.')
    expect(within(dialog).queryByRole('progressbar')).toBeNull()
    // again: this time it runs, the dialog closes and the session opens
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create the session' }))
    await waitFor(() => expect(client.callsOf('session.create')).toHaveLength(2))
    act(() => answer(made))
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: made.id }))
  })

  it('deletes a snapshot only after a confirmation, and rewinds a live session to one', async () => {
    const client = new FakeClient()
      .handle('snapshot.list', () => ({ items: [snap({ id: 'keep:v1', name: 'keep' }), snap({ id: 'drop:v1', name: 'drop' })], next: null }))
      .handle('snapshot.remove', (a) => ({ deleted: true, id: a.id }))
      .handle('session.rewind', (a) => ({ session: web, kept: snap({ id: 'pre-rewind-1:v1' }), to: snap({ id: a.to }), memory: true, note: null }))
    boot(client, '#/snapshots')
    const table = await screen.findByRole('table', { name: 'snapshots' })
    fireEvent.click(screen.getByRole('button', { name: 'more for drop:v1' }))
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete…' }))
    const ask = await screen.findByRole('dialog', { name: 'Delete drop:v1?' })
    fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }))
    expect(client.callsOf('snapshot.remove')).toEqual([])
    fireEvent.click(screen.getByRole('button', { name: 'more for drop:v1' }))
    fireEvent.click(screen.getByRole('menuitem', { name: 'Delete…' }))
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Delete drop:v1?' })).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(within(table).queryByText('drop:v1')).toBeNull())
    expect(client.callsOf('snapshot.remove')).toEqual([{ id: 'drop:v1' }])

    fireEvent.click(screen.getByRole('button', { name: 'more for keep:v1' }))
    fireEvent.click(screen.getByRole('menuitem', { name: 'Rewind its session to it…' }))
    fireEvent.click(within(await screen.findByRole('dialog', { name: 'Rewind web to keep:v1?' })).getByRole('button', { name: 'Rewind' }))
    expect(await screen.findByText('web is back at keep:v1 with its memory; its state before is kept as pre-rewind-1:v1.')).toBeTruthy()
  })

  it("browses a session's checkpoints: timeline, lineage, details, what changed and a file's diff", async () => {
    const child = session({ name: 'web-2' })
    const entry = (over: Partial<Snapshot>) => ({ ...snap(over), dependents: [] as Array<{ kind: 'session' | 'snapshot'; id: string; name: string }> })
    const client = new FakeClient()
      .handle('snapshot.list', () => ({ items: [], next: null }))
      .handle('snapshot.timeline', () => ({
        session: { id: web.id, name: 'web' },
        items: [
          { ...entry({ id: 'web.pause:v1', auto: true, reason: 'pause', kind: 'disk' }), dependents: [{ kind: 'session', id: child.id, name: 'web-2' }] },
          entry({ id: 'nightly:v1', parentSnapshot: 'web.pause:v1' }),
        ],
        lineage: [
          { id: web.id, name: 'web', state: 'running', server: 'local', parent: null, snapshot: null, verb: null },
          { id: child.id, name: 'web-2', state: 'running', server: 'local', parent: web.id, snapshot: 'web.pause:v1', verb: 'fork' },
        ],
      }))
      .handle('snapshot.diff', (a) => ({
        from: a.from ?? 'web.pause:v1',
        to: a.to,
        total: 2,
        cached: false,
        items: [
          { status: 'added', type: 'file', size: 6, path: '/workspace/new.txt' },
          { status: 'deleted', type: 'file', size: 3, path: '/workspace/old.txt' },
        ],
        next: null,
      }))
      .handle('snapshot.diffFile', (a) => ({ path: a.path, kind: 'diff', text: '--- a/workspace/new.txt\n+++ b/workspace/new.txt\n@@ -0,0 +1 @@\n+hello', bytes: null, truncated: false }))
    boot(client, `#/snapshots/${web.id}`)
    expect(await screen.findByRole('heading', { name: 'Snapshots of web' })).toBeTruthy()
    const timeline = await screen.findByRole('list', { name: 'checkpoint history' })
    expect(within(timeline).getAllByRole('listitem').map((li) => li.querySelector('strong')!.textContent)).toEqual(['web.pause:v1', 'nightly:v1'])
    const lineage = screen.getByRole('navigation', { name: 'lineage' })
    expect(within(lineage).getByText('web-2').closest('li')!.textContent).toContain('fork from web.pause:v1')

    // the newest is selected: its details and what changed since the one before
    expect(await screen.findByRole('heading', { name: 'nightly:v1' })).toBeTruthy()
    expect(await screen.findByText('2 files changed since web.pause:v1.')).toBeTruthy()
    expect(client.callsOf('snapshot.diff')[0]).toMatchObject({ to: 'nightly:v1', offset: 0 })
    fireEvent.click(screen.getByRole('button', { name: '/workspace/new.txt' }))
    const diff = await screen.findByRole('region', { name: 'diff of /workspace/new.txt' })
    await waitFor(() => expect(diff.textContent).toContain('+hello'))

    // another checkpoint, compared with any other
    fireEvent.click(within(timeline).getByRole('button', { name: /web\.pause:v1/ }))
    expect(await screen.findByRole('heading', { name: 'web.pause:v1' })).toBeTruthy()
    fireEvent.change(screen.getByLabelText('compare with'), { target: { value: 'nightly:v1' } })
    await waitFor(() => expect(client.callsOf('snapshot.diff').at(-1)).toMatchObject({ to: 'web.pause:v1', from: 'nightly:v1' }))

    // a snapshot a session still runs from is not deleted: the reason is given
    expect(screen.getByText(/Kept: web-2 was made from it/)).toBeTruthy()
    fireEvent.click(within(screen.getByRole('group', { name: 'actions for web.pause:v1' })).getByRole('button', { name: 'Delete…' }))
    expect(await screen.findByText('web.pause:v1 is kept: web-2 was made from it and still runs on its disk. Finish those sessions first.')).toBeTruthy()
    expect(client.callsOf('snapshot.remove')).toEqual([])
  })

  it('says what to do when there are none', async () => {
    boot(new FakeClient().handle('snapshot.list', () => ({ items: [], next: null })), '#/snapshots')
    expect(await screen.findByText('No snapshots yet')).toBeTruthy()
  })
})
