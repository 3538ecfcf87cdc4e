import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import type { Server, Session } from '../../shared/models'
import { DEFAULT_SETTINGS } from '../../shared/settings'
import { bootApp, closeApp } from './test/boot-app'
import { FakeClient, localServer as local, session } from './test/fake-client'

afterEach(closeApp)

describe('the sessions screen', () => {
  it('says what to do when there is no session', async () => {
    bootApp(new FakeClient().handle('session.list', () => []))
    expect(await screen.findByText('No sessions yet')).toBeTruthy()
    fireEvent.click(screen.getAllByRole('button', { name: 'New session' })[1]!)
    expect(await screen.findByRole('dialog', { name: 'New session' })).toBeTruthy()
  })

  it('on the first run, shows what Berth found on this machine and what to do about it', async () => {
    let asked = 0
    const client = new FakeClient()
      .handle('session.list', () => [])
      .handle('doctor.report', () => {
        asked++
        return {
          host: 'electron' as const,
          home: '/home/ada/.config/Berth',
          checks: [
            { id: 'engine' as const, title: 'Docker engine', status: 'ok' as const, summary: 'Docker 27.3 on /Users/ada/.orbstack/run/docker.sock: OrbStack\'s socket', problem: null, fix: null, facts: {} },
            { id: 'sleep-hook' as const, title: 'Sleep hook', status: 'warn' as const, summary: 'no Berth line in ~/.sleep (sleepwatcher)', problem: 'missing', fix: 'Run `berth power install-hook`', facts: {} },
          ],
        }
      })
    bootApp(client)
    const checks = await screen.findByRole('region', { name: 'Berth on this machine' })
    expect(await within(checks).findByText(/OrbStack's socket/)).toBeTruthy()
    const hook = within(checks).getByText('Sleep hook').closest('li')!
    expect(within(hook).getByText('check')).toBeTruthy()
    expect(within(hook).getByText('Run `berth power install-hook`')).toBeTruthy()
    fireEvent.click(within(checks).getByRole('button', { name: 'Check again' }))
    await waitFor(() => expect(asked).toBe(2))
  })

  it('shows each state honestly: the pause mode, a move with its progress, a failure with its reason', async () => {
    const paused = session({ name: 'paused-one', state: 'paused', mode: 'memory', durable: true })
    const frozen = session({ name: 'frozen-one', state: 'paused', mode: 'frozen', durable: false })
    const moving = session({ name: 'moving-one', state: 'moving', server: 'office' })
    const failed = session({ name: 'failed-one', state: 'failed', failure: 'the checkpoint did not restore: criu failed' })
    const unsaved = session({ name: 'unsaved-one', workspace: { dir: '/src/app', branch: 'session/x', base: 'abc' }, meter: { cpuSeconds: 1, peakMemoryBytes: 1, memoryBytes: 64 * 1024 * 1024, diskBytes: 0, cpuPercent: 3.25, runningSeconds: 60, cost: 0.12, ratePerHour: 0.5, sampledAt: null } })
    const fresh = session({ name: 'fresh-one', image: 'berth/session:h1.fresh', meter: { cpuSeconds: 0, peakMemoryBytes: 0, memoryBytes: 0, diskBytes: 0, cpuPercent: 0, runningSeconds: 2, cost: 0, ratePerHour: 0.5, sampledAt: null } })
    const client = new FakeClient()
      .handle('session.list', () => [paused, frozen, moving, failed, unsaved, fresh])
      .handle('workspace.status', () => ({ dir: '/src/app', branch: 'session/x', saved: false, changes: [' M app.ts'], unsavedCommits: [], lastSave: null }))
    bootApp(client)
    const table = await screen.findByRole('table', { name: 'sessions' })
    const row = (name: string) => within(table).getByText(name).closest('tr')!
    expect(within(row('paused-one')).getByText('paused (memory)')).toBeTruthy()
    expect(within(row('frozen-one')).getByText('paused (frozen, saving…)')).toBeTruthy()
    expect(within(row('failed-one')).getByText('the checkpoint did not restore: criu failed')).toBeTruthy()
    expect(await within(row('unsaved-one')).findByText('● unsaved')).toBeTruthy()
    expect(within(row('paused-one')).queryByText('● unsaved')).toBeNull()
    expect(within(row('unsaved-one')).getByText(/3\.3% cpu · 64\.0 MiB · \$0\.12/)).toBeTruthy()
    // not sampled yet: no made-up 0 B
    expect(within(row('fresh-one')).getByText('measuring · $0.00')).toBeTruthy()
    // Berth's own per-session image reads as what it is; the tag stays in the tooltip
    expect(within(row('fresh-one')).getByText('its own disk image').getAttribute('title')).toBe('berth/session:h1.fresh')
    act(() => client.emit('progress', { op: 'm', sessionId: moving.id, server: 'office', stage: 'layers', bytes: 30 * 1024 * 1024, total: 120 * 1024 * 1024, rate: 10 * 1024 * 1024, done: false, message: 'moving to office' }))
    const bar = within(row('moving-one')).getByRole('progressbar')
    expect(bar.getAttribute('aria-valuenow')).toBe('25')
    expect(bar.textContent).toContain('moving to office — 25% · 30.0 MiB of 120 MiB · 10.0 MiB/s')
    // a change arrives: the row follows without a reload
    act(() => client.emit('session.changed', { ...moving, state: 'paused', mode: 'memory', durable: true }))
    expect(within(row('moving-one')).queryByRole('progressbar')).toBeNull()
    expect(within(row('moving-one')).getByText('paused (memory)')).toBeTruthy()
  })

  it('keeps only a screenful of a thousand sessions in the page, and a filter still finds any of them', async () => {
    // happy-dom lays nothing out: the scrolling pane gets the height of a window, a row its own
    const clientHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight')!
    const offsetHeight = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'offsetHeight')!
    Object.defineProperty(HTMLElement.prototype, 'clientHeight', { configurable: true, get(this: HTMLElement) { return this.classList.contains('main') ? 800 : 0 } })
    Object.defineProperty(HTMLElement.prototype, 'offsetHeight', { configurable: true, get(this: HTMLElement) { return this.tagName === 'TR' ? 55 : 0 } })
    try {
      const many = Array.from({ length: 1000 }, (_, i) => session({ name: `project-${i}`, createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString() }))
      bootApp(new FakeClient().handle('session.list', () => many))
      const table = await screen.findByRole('table', { name: 'sessions' })
      expect(table.getAttribute('aria-rowcount')).toBe('1001')
      // newest first: the top of the list is in the page, the bottom is not
      expect(await within(table).findByText('project-999')).toBeTruthy()
      expect(within(table).queryByText('project-0')).toBeNull()
      const inPage = table.querySelectorAll('tr[data-session]').length
      expect(inPage).toBeGreaterThan(5)
      expect(inPage).toBeLessThan(60)
      // a filter finds a session however far down it is
      fireEvent.change(screen.getByLabelText('filter sessions'), { target: { value: 'project-0' } })
      expect(await within(table).findByText('project-0')).toBeTruthy()
    } finally {
      Object.defineProperty(HTMLElement.prototype, 'clientHeight', clientHeight)
      Object.defineProperty(HTMLElement.prototype, 'offsetHeight', offsetHeight)
    }
  })

  it('filters by state, server and text, and offers to clear filters that hide everything', async () => {
    const a = session({ name: 'web', server: 'office' })
    const b = session({ name: 'api', state: 'paused', mode: 'disk', durable: true })
    const c = session({ name: 'old', state: 'finished' })
    bootApp(new FakeClient().handle('session.list', () => [a, b, c]))
    const table = await screen.findByRole('table', { name: 'sessions' })
    expect(within(table).queryByText('old')).toBeNull()
    fireEvent.change(screen.getByLabelText('state'), { target: { value: 'paused' } })
    expect(within(table).queryByText('web')).toBeNull()
    expect(within(table).getByText('api')).toBeTruthy()
    fireEvent.change(screen.getByLabelText('state'), { target: { value: 'all' } })
    fireEvent.change(screen.getByLabelText('filter sessions'), { target: { value: 'ol' } })
    expect(within(table).getByText('old')).toBeTruthy()
    fireEvent.change(screen.getByLabelText('filter sessions'), { target: { value: 'zzz' } })
    expect(await screen.findByText('No session matches these filters')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }))
    expect(await screen.findByText('web')).toBeTruthy()
  })

  it('finishes a session after a confirmation, and asks for its name when work is unsaved', async () => {
    const plain = session({ name: 'plain' })
    const risky = session({ name: 'risky', workspace: { dir: '/src/app', branch: 'session/y', base: 'abc' } })
    const client = new FakeClient()
      .handle('session.list', () => [plain, risky])
      .handle('session.finish', (a) => ({ ...(a.id === plain.id ? plain : risky), state: 'finished' }))
      .handle('workspace.status', () => ({ dir: '/src/app', branch: 'session/y', saved: false, changes: ['?? new.txt'], unsavedCommits: [], lastSave: null }))
    bootApp(client)
    const table = await screen.findByRole('table', { name: 'sessions' })
    await within(table).findByText('● unsaved')
    const finishOf = (name: string) => {
      fireEvent.click(screen.getByRole('button', { name: `more for ${name}` }))
      fireEvent.click(screen.getByRole('menuitem', { name: 'Finish…' }))
    }
    finishOf('plain')
    const dialog = await screen.findByRole('dialog', { name: 'Finish plain?' })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Finish' }))
    await waitFor(() => expect(client.callsOf('session.finish')).toEqual([{ id: plain.id }]))

    finishOf('risky')
    const ask = await screen.findByRole('dialog', { name: 'Finish risky?' })
    expect(ask.textContent).toContain('never saved back to /src/app')
    const confirm = within(ask).getByRole('button', { name: 'Finish' }) as HTMLButtonElement
    expect(confirm.disabled).toBe(true)
    fireEvent.change(within(ask).getByLabelText('confirmation'), { target: { value: 'risky' } })
    expect(confirm.disabled).toBe(false)
    fireEvent.click(confirm)
    await waitFor(() => expect(client.callsOf('session.finish')).toHaveLength(2))
    // the user typed the name: unsaved work is destroyed on purpose
    expect(client.callsOf('session.finish')[1]).toEqual({ id: risky.id, force: true })
  })

  it('pauses and resumes, saying what the pause kept and how the session came back', async () => {
    const running = session({ name: 'busy' })
    const paused = session({ name: 'resting', state: 'paused', mode: 'memory', durable: true })
    const office: Server = { ...local, name: 'office', kind: 'ssh', url: 'ssh://office@127.0.0.2:2222' }
    const client = new FakeClient()
      .handle('session.list', () => [running, paused])
      .handle('server.list', () => [local, office])
      .handle('session.pause', () => ({ paused: true, mode: 'frozen', durable: true, snapshot: 'p1', ms: 1500, fallback: 'CRIU cannot checkpoint this server' }))
      .handle('session.move', () => ({ session: { ...paused, server: 'office', state: 'running' }, from: 'local', to: 'office', memory: false, note: 'the target has another kernel', bytes: 3 * 1024 * 1024, seconds: 2.5, layersSent: 1, layersSkipped: 3, resumed: true }))
    const stores = bootApp(client)
    client.handle('server.list', () => [local, office])
    await stores.servers.getState().load()
    const table = await screen.findByRole('table', { name: 'sessions' })
    fireEvent.click(within(within(table).getByText('busy').closest('tr')!).getByRole('button', { name: 'Pause' }))
    await waitFor(() => expect(client.callsOf('session.pause')[0]).toMatchObject({ id: running.id, memory: true }))
    expect(await screen.findByText('busy paused in 1.5 s: frozen in memory on its server, with its disk saved (CRIU cannot checkpoint this server).')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'more for resting' }))
    fireEvent.click(screen.getByRole('menuitem', { name: 'Resume on office' }))
    await waitFor(() => expect(client.callsOf('session.move')[0]).toMatchObject({ id: paused.id, to: 'office', resume: true }))
    expect(await screen.findByText('resting moved to office (3.0 MiB in 2.5 s) and resumed: it booted from disk (the target has another kernel).')).toBeTruthy()
  })

  it('opens the selected session from the keyboard, and n opens a new session', async () => {
    const a = session({ name: 'first' })
    const b = session({ name: 'second' })
    const stores = bootApp(new FakeClient().handle('session.list', () => [a, b]).fail('view.list', 'conflict', 'x'))
    await screen.findByRole('table', { name: 'sessions' })
    fireEvent.keyDown(window, { key: 'j' })
    fireEvent.keyDown(window, { key: 'j' })
    fireEvent.keyDown(window, { key: 'Enter' })
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: b.id }))
    fireEvent.keyDown(window, { key: 'n' })
    expect(stores.ui.getState().dialog).toBe('new-session')
  })

  it("leaves Enter and the arrows to a focused button: a row's menu opens by keyboard and no session opens besides", async () => {
    const a = session({ name: 'first' })
    const b = session({ name: 'second' })
    const stores = bootApp(new FakeClient().handle('session.list', () => [a, b]).fail('view.list', 'conflict', 'x'))
    await screen.findByRole('table', { name: 'sessions' })
    fireEvent.keyDown(window, { key: 'j' })
    const more = screen.getByRole('button', { name: 'more for second' })
    more.focus()
    fireEvent.keyDown(more, { key: 'ArrowDown' })
    const menu = await screen.findByRole('menu', { name: 'more for second' })
    const items = within(menu).getAllByRole('menuitem')
    await waitFor(() => expect(document.activeElement).toBe(items[0]))
    fireEvent.keyDown(items[0]!, { key: 'ArrowDown' })
    expect(document.activeElement).toBe(items[1])
    fireEvent.keyDown(items[1]!, { key: 'Escape' })
    await waitFor(() => expect(screen.queryByRole('menu')).toBeNull())
    expect(document.activeElement).toBe(more)
    // Enter on the focused button is the button's: still the list, the first row still the selected one
    fireEvent.keyDown(more, { key: 'Enter' })
    expect(stores.ui.getState().route).toEqual({ screen: 'sessions' })
    fireEvent.keyDown(window, { key: 'Enter' })
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: a.id }))
  })
})

describe('the session view', () => {
  it('shows what the list knows at once, the ssh line and origin once the whole session is read, and stays live', async () => {
    const s = session({
      name: 'resting',
      state: 'paused',
      mode: 'memory',
      durable: true,
      sshLine: 'ssh -p 2222 calm-otter@127.0.0.1',
      origin: { verb: 'fork', snapshot: 'base:v1', memory: true, note: null, at: '2026-01-01T00:00:00Z' },
    })
    let answer: (x: Session) => void = () => undefined
    const client = new FakeClient().handle('session.list', () => [s]).handle('session.show', () => new Promise<Session>((r) => (answer = r)))
    bootApp(client, `#/sessions/${s.id}`)
    const view = await screen.findByRole('region', { name: 'session resting' })
    expect(within(view).getByText('paused (memory)')).toBeTruthy()
    expect(within(view).queryByText(s.sshLine!)).toBeNull()
    await act(async () => answer(s))
    expect(await within(view).findByText(s.sshLine!)).toBeTruthy()
    expect(within(view).getByText(/Made by fork from snapshot base:v1: its processes continued from memory/)).toBeTruthy()
    act(() => client.emit('session.changed', { ...s, state: 'resuming', sshLine: 'ssh -p 2200 calm-otter@127.0.0.1' }))
    expect(within(view).getAllByText('resuming').length).toBeGreaterThan(0)
    expect(within(view).getByText('ssh -p 2200 calm-otter@127.0.0.1')).toBeTruthy()
  })
})

describe('a pause in the session view', () => {
  it('shows its stage and the memory written against what was expected, in a header that keeps its rows', async () => {
    const s = session({ name: 'napping', state: 'pausing' })
    const client = new FakeClient().handle('session.list', () => [s]).handle('session.show', () => s)
    bootApp(client, `#/sessions/${s.id}`)
    const view = await screen.findByRole('region', { name: 'session napping' })
    const rows = () => [...view.querySelector('.session-head')!.children].map((c) => c.className)
    const before = rows()
    const base = { op: 'p', sessionId: s.id, server: 'local', rate: null, done: false }
    act(() => client.emit('progress', { ...base, stage: 'memory', message: 'writing the memory of napping', bytes: 0, total: 120 * 1024 * 1024 }))
    const bar = within(view).getByRole('progressbar')
    expect(bar.getAttribute('data-stage')).toBe('memory')
    expect(bar.getAttribute('aria-valuetext')).toBe('writing the memory of napping — 120 MiB expected')
    act(() => client.emit('progress', { ...base, stage: 'memory', message: 'memory of napping written; making it durable', bytes: 90 * 1024 * 1024, total: 120 * 1024 * 1024 }))
    expect(within(view).getByRole('progressbar').getAttribute('aria-valuetext')).toBe('memory of napping written; making it durable — 75% · 90.0 MiB of 120 MiB')
    // the bar takes the status line: the header keeps the same rows
    expect(rows()).toEqual(before)
    expect(before).toEqual(['head-row', 'facts', 'status-line'])
  })
})

describe('creating a session', () => {
  it('checks the fields with the contract and names the first problem in one sentence', async () => {
    const client = new FakeClient().handle('session.list', () => [])
    bootApp(client)
    fireEvent.click((await screen.findAllByRole('button', { name: 'New session' }))[0]!)
    const dialog = await screen.findByRole('dialog', { name: 'New session' })
    fireEvent.change(within(dialog).getByLabelText('name'), { target: { value: 'bad name!' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('a session name is letters, digits, dot, dash and underscore')
    fireEvent.change(within(dialog).getByLabelText('name'), { target: { value: 'ok' } })
    fireEvent.change(within(dialog).getByLabelText('environment'), { target: { value: 'GOOD=1\nnot an assignment' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('“not an assignment” is not NAME=value')
    expect(client.callsOf('session.create')).toEqual([])
  })

  it('creates on the chosen server and opens the new session', async () => {
    const created = session({ name: 'fresh' })
    const client = new FakeClient().handle('session.list', () => []).handle('session.create', () => created).fail('view.list', 'conflict', 'not yet')
    const stores = bootApp(client)
    fireEvent.click((await screen.findAllByRole('button', { name: 'New session' }))[0]!)
    const dialog = await screen.findByRole('dialog', { name: 'New session' })
    fireEvent.change(within(dialog).getByLabelText('image'), { target: { value: 'berth-tiny:latest' } })
    fireEvent.change(within(dialog).getByLabelText('name'), { target: { value: 'fresh' } })
    fireEvent.change(within(dialog).getByLabelText('environment'), { target: { value: 'A=1\nB=two=2' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: created.id }))
    expect(client.callsOf('session.create')[0]).toMatchObject({ server: 'local', image: 'berth-tiny:latest', name: 'fresh', env: { A: '1', B: 'two=2' } })
  })

  it("offers to start from a folder's devcontainer.json, the workspace's when no folder is named", async () => {
    const created = session({ name: 'webapp' })
    const client = new FakeClient().handle('session.list', () => []).handle('session.create', () => created).fail('view.list', 'conflict', 'not yet')
    const stores = bootApp(client)
    fireEvent.click((await screen.findAllByRole('button', { name: 'New session' }))[0]!)
    const dialog = await screen.findByRole('dialog', { name: 'New session' })
    fireEvent.click(within(dialog).getByLabelText("From this folder's devcontainer.json"))
    expect(within(dialog).queryByLabelText('image')).toBeNull()
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }))
    expect((await within(dialog).findByRole('alert')).textContent).toMatch(/^name the project folder/)
    fireEvent.change(within(dialog).getByLabelText('workspace'), { target: { value: '/home/me/src/webapp' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }))
    await waitFor(() => expect(stores.ui.getState().route).toEqual({ screen: 'session', id: created.id }))
    const call = client.callsOf('session.create')[0]
    expect(call).toMatchObject({ server: 'local', devcontainer: '/home/me/src/webapp', workspace: '/home/me/src/webapp' })
    expect(call).not.toHaveProperty('image')
  })
})

describe('the servers screen', () => {
  it('shows the host key fingerprint and stores nothing before the user confirms it', async () => {
    const office: Server = { ...local, name: 'office', kind: 'ssh', url: 'ssh://office@127.0.0.2:2222', hostKeyFingerprint: 'SHA256:vRAm' }
    const client = new FakeClient()
      .handle('session.list', () => [])
      .handle('server.probe', (a) => ({ url: a.url, keyType: 'ssh-ed25519', fingerprint: 'SHA256:vRAm', known: false }))
      .handle('server.add', () => ({ ...office, hostKeyTrust: 'its host key SHA256:abc is the one you confirmed' }))
    bootApp(client, '#/servers')
    expect(await screen.findByText(/0\.80 ms · Docker 20\.10\.24/)).toBeTruthy()
    // whether it pauses with memory is its own column, from the server's last test
    expect(screen.getByText('not tested yet')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Add a server' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a server' })
    fireEvent.change(within(dialog).getByLabelText('server name'), { target: { value: 'office' } })
    fireEvent.change(within(dialog).getByLabelText('ssh address'), { target: { value: 'https://127.0.0.2/' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }))
    expect((await within(dialog).findByRole('alert')).textContent).toBe('a server address looks like ssh://USER@HOST:PORT, or a Host of your ~/.ssh/config')
    fireEvent.change(within(dialog).getByLabelText('ssh address'), { target: { value: 'ssh://office@127.0.0.2:2222' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }))
    expect((await within(dialog).findByTestId('fingerprint')).textContent).toBe('SHA256:vRAm')
    expect(client.callsOf('server.add')).toEqual([])
    fireEvent.click(within(dialog).getByRole('button', { name: 'The fingerprint matches: add' }))
    await waitFor(() => expect(client.callsOf('server.add')).toEqual([{ name: 'office', url: 'ssh://office@127.0.0.2:2222', identity: undefined, acceptHostKey: 'SHA256:vRAm' }]))
    expect(await screen.findByText('ssh://office@127.0.0.2:2222')).toBeTruthy()
  })

  it('shows a refused add as one sentence and keeps the dialog', async () => {
    const client = new FakeClient()
      .handle('session.list', () => [])
      .handle('server.probe', (a) => ({ url: a.url, keyType: 'ssh-ed25519', fingerprint: 'SHA256:new', known: false }))
      .fail('server.add', 'host_key_mismatch', 'the host key of 10.0.0.9:22 is SHA256:other, not the SHA256:new you confirmed; nothing was stored')
    bootApp(client, '#/servers')
    fireEvent.click(await screen.findByRole('button', { name: 'Add a server' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a server' })
    fireEvent.change(within(dialog).getByLabelText('server name'), { target: { value: 'lab' } })
    fireEvent.change(within(dialog).getByLabelText('ssh address'), { target: { value: 'ssh://me@10.0.0.9:22' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }))
    fireEvent.click(await within(dialog).findByRole('button', { name: 'The fingerprint matches: add' }))
    expect((await within(dialog).findByRole('alert')).textContent).toContain('The host key of 10.0.0.9:22 is SHA256:other, not the SHA256:new you confirmed; nothing was stored.')
  })
})

describe('the add-server dialog, in its own words', () => {
  it("names the dialog's field where the core names the CLI's flag", async () => {
    const client = new FakeClient()
      .handle('session.list', () => [])
      .fail('server.probe', 'usage', 'no identity for lab (10.0.0.9:22): pass --identity FILE, name an IdentityFile in ~/.ssh/config, or run an ssh agent')
    bootApp(client, '#/servers')
    fireEvent.click(await screen.findByRole('button', { name: 'Add a server' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add a server' })
    fireEvent.change(within(dialog).getByLabelText('server name'), { target: { value: 'lab' } })
    fireEvent.change(within(dialog).getByLabelText('ssh address'), { target: { value: 'ssh://me@10.0.0.9:22' } })
    fireEvent.click(within(dialog).getByRole('button', { name: 'Continue' }))
    const said = (await within(dialog).findByRole('alert')).textContent!
    expect(said).toContain('choose a key in the Identity file field, name an IdentityFile in ~/.ssh/config, or run an ssh agent')
    expect(said).not.toContain('--')
  })
})

describe('the settings screen', () => {
  it('saves a change as a patch the core validates', async () => {
    const client = new FakeClient().handle('session.list', () => []).handle('settings.set', (a) => ({ ...DEFAULT_SETTINGS, ...a.patch }))
    bootApp(client, '#/settings')
    fireEvent.click(await screen.findByLabelText(/Pause only sessions marked auto-pause/))
    await waitFor(() => expect(client.callsOf('settings.set')).toEqual([{ patch: { onSleep: 'marked' } }]))
    const idle = screen.getByLabelText('Idle minutes before a session pauses itself') as HTMLInputElement
    expect(idle.value).toBe('10')
    fireEvent.change(idle, { target: { value: '25' } })
    fireEvent.blur(idle)
    await waitFor(() => expect(client.callsOf('settings.set')[1]).toEqual({ patch: { idleAfterSeconds: 1500 } }))
    fireEvent.change(idle, { target: { value: '-3' } })
    fireEvent.blur(idle)
    expect(await screen.findByText('between 0 and 10080')).toBeTruthy()
    expect(client.callsOf('settings.set')).toHaveLength(2)
  })
})

describe('the settings screen, as it reads', () => {
  it('says "Saved" once the core took a change, and shows commands as code, never backticks', async () => {
    const client = new FakeClient()
      .handle('session.list', () => [])
      .handle('settings.set', (a) => ({ ...DEFAULT_SETTINGS, ...a.patch }))
      .handle('power.doctor', () => ({
        platform: 'linux',
        window: { seconds: 5, source: 'logind', note: 'logind waits 5 s for Berth' },
        deadlineMs: 4500,
        needMs: 9000,
        fits: false,
        sessions: [],
        hook: { installed: false, path: null },
        advice: 'the window is too short for web: `sudo berth power install-hook --logind` raises it',
      }))
    bootApp(client, '#/settings')
    const window = await screen.findByTestId('sleep-window')
    expect(window.textContent).not.toContain('`')
    expect(within(window).getByText('sudo berth power install-hook --logind').tagName).toBe('CODE')
    expect(screen.getByTestId('saved').textContent).toBe('')
    fireEvent.click(screen.getByLabelText(/Pause only sessions marked auto-pause/))
    await waitFor(() => expect(screen.getByTestId('saved').textContent).toBe('Saved'))
  })
})

describe('rates', () => {
  it("sets a server's hourly rate from the settings", async () => {
    const client = new FakeClient()
      .handle('session.list', () => [])
      .handle('routes.info', () => ({
        gateway: { host: '127.0.0.1', port: 2222, listening: true, hostKeyFingerprint: 'SHA256:gw', hostKeyAlias: 'berth-gateway', connections: 0 },
        preview: { host: '127.0.0.1', port: 8022, listening: true },
        sshConfig: { path: '/home/me/.berth/ssh_config', includeLine: 'Include /home/me/.berth/ssh_config' },
      }))
      .handle('server.setRate', (a) => ({ ...local, ratePerHour: a.ratePerHour }))
    bootApp(client, '#/settings')
    expect(await screen.findByText('Include /home/me/.berth/ssh_config')).toBeTruthy()
    const rate = screen.getByLabelText('local: dollars per running hour') as HTMLInputElement
    fireEvent.change(rate, { target: { value: '0.25' } })
    fireEvent.blur(rate)
    await waitFor(() => expect(client.callsOf('server.setRate')).toEqual([{ name: 'local', ratePerHour: 0.25 }]))
  })
})

describe('the shell of the page', () => {
  it('follows the route with Alt+Shift+number (Ctrl+number is the browser tab\'s) and shows when the link to the core is down', async () => {
    const client = new FakeClient().handle('session.list', () => [])
    const stores = bootApp(client)
    fireEvent.keyDown(window, { key: '#', code: 'Digit3', altKey: true, shiftKey: true })
    expect(stores.ui.getState().route).toEqual({ screen: 'servers' })
    // the desktop app's Ctrl+number too, where it reaches the page
    fireEvent.keyDown(window, { key: '2', code: 'Digit2', ctrlKey: true })
    expect(stores.ui.getState().route).toEqual({ screen: 'snapshots' })
    fireEvent.keyDown(window, { key: '3', code: 'Digit3', altKey: true, shiftKey: true })
    expect(await screen.findByRole('heading', { name: 'Servers' })).toBeTruthy()
    act(() => stores.ui.setState({ connected: false }))
    expect(screen.getByText('Reconnecting to Berth…')).toBeTruthy()
    fireEvent.keyDown(window, { key: '?' })
    expect(await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })).toBeTruthy()
  })

  it('keeps the focus inside the shortcuts list, which a keyboard closes as it opened it', async () => {
    const client = new FakeClient().handle('session.list', () => [])
    bootApp(client)
    fireEvent.keyDown(window, { key: '?' })
    const dialog = await screen.findByRole('dialog', { name: 'Keyboard shortcuts' })
    const close = within(dialog).getByRole('button', { name: 'Close' })
    await waitFor(() => expect(document.activeElement).toBe(close))
    for (const shiftKey of [false, true, false]) {
      fireEvent.keyDown(window, { key: 'Tab', shiftKey })
      expect(dialog.contains(document.activeElement)).toBe(true)
    }
    fireEvent.click(close)
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull())
  })
})
