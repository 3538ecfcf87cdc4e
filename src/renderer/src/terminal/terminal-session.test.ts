import { describe, expect, it, vi } from 'vitest'
import type { SessionState } from '../../../shared/models'
import { b64, FakeClient, flush, unb64 } from '../test/fake-client'
import { StreamRouter } from './stream-router'
import { TerminalSession, terminalTheme } from './terminal-session'
import { textToBase64 } from './codec'

function setup(state: { value: SessionState }) {
  let n = 0
  const client = new FakeClient()
    .handle('view.open', (a) => ({ streamId: `st${++n}`, view: a.view ?? 'main', persistent: true }))
    .handle('view.list', () => [{ name: 'main', attached: 0, createdAt: null }])
    .handle('stream.write', () => ({ ok: true }))
    .handle('stream.ack', () => ({ ok: true }))
    .handle('stream.close', () => ({ ok: true }))
    .handle('stream.resize', () => ({ ok: true }))
  const router = new StreamRouter(client)
  const changes: string[] = []
  const t = new TerminalSession(
    {
      client,
      router,
      sessionId: 's1',
      sessionState: () => state.value,
      theme: () => terminalTheme(false),
      clipboard: { read: async () => client.clipboard, write: async (x) => void (client.clipboard = x) },
      onChange: (s) => changes.push(s.status),
    },
    undefined,
  )
  return { client, t, changes }
}

describe('a terminal tab', () => {
  it('opens its view, renders output and acknowledges what it rendered', async () => {
    const state = { value: 'running' as SessionState }
    const { client, t } = setup(state)
    await t.attach(false)
    expect(t.state).toMatchObject({ status: 'attached', view: 'main' })
    expect(client.callsOf('view.open')[0]).toMatchObject({ id: 's1', cols: 80, rows: 24, history: false })
    const payload = 'hello-42\r\n'.repeat(5000)
    client.emit('stream.data', { streamId: 'st1', fd: 1, data: b64(payload) })
    await vi.waitFor(() => expect(client.callsOf('stream.ack').reduce((sum, a) => sum + a.bytes, 0)).toBe(payload.length), { timeout: 3000 })
    expect(t.text()).toContain('hello-42')
  })

  it('tells the view the size it was fitted to while the view was opening', async () => {
    const { client, t } = setup({ value: 'running' })
    client.handle('view.open', async () => {
      await new Promise((r) => setTimeout(r, 150)) // opening a view takes a round trip to the engine
      return { streamId: 'st1', view: 'main', persistent: true }
    })
    const opening = t.attach(false)
    t.term.resize(160, 46) // the pane mounts and fits before view.open answers
    await opening
    await vi.waitFor(() => expect(client.callsOf('stream.resize')).toEqual([{ streamId: 'st1', cols: 160, rows: 46 }]))
  })

  it('sends keystrokes as UTF-8 to its stream', async () => {
    const { client, t } = setup({ value: 'running' })
    await t.attach(false)
    t.term.input('é\r')
    expect(client.callsOf('stream.write')).toEqual([{ streamId: 'st1', data: textToBase64('é\r') }])
  })

  it('waits while the session is paused and reattaches by itself when it runs, keeping its output', async () => {
    const state = { value: 'running' as SessionState }
    const { client, t } = setup(state)
    await t.attach(false)
    client.emit('stream.data', { streamId: 'st1', fd: 1, data: b64('before the pause\r\n') })
    state.value = 'pausing'
    client.emit('stream.exit', { streamId: 'st1', exitCode: 0 })
    await flush()
    expect(t.state.status).toBe('waiting')
    state.value = 'paused'
    t.sessionChanged('paused')
    expect(client.callsOf('view.open')).toHaveLength(1)
    state.value = 'running'
    t.sessionChanged('running')
    await vi.waitFor(() => expect(t.state.status).toBe('attached'))
    expect(client.callsOf('view.open')[1]).toMatchObject({ view: 'main', history: false })
    await vi.waitFor(() => expect(t.text()).toContain('before the pause'))
  })

  it('waits when the session is not running yet, and says when the shell ended', async () => {
    const state = { value: 'running' as SessionState }
    const { client, t } = setup(state)
    client.fail('view.open', 'conflict', 'session s1 is paused: resume it to open a terminal')
    await t.attach(true)
    expect(t.state.status).toBe('waiting')
    client.handle('view.open', () => ({ streamId: 'st9', view: 'main', persistent: true }))
    t.sessionChanged('running')
    await vi.waitFor(() => expect(t.state.status).toBe('attached'))
    // the shell exited: the view is gone
    client.handle('view.list', () => [])
    client.emit('stream.exit', { streamId: 'st9', exitCode: 0 })
    await vi.waitFor(() => expect(t.state.status).toBe('ended'))
    // Enter starts a new shell in the same view
    t.term.input('\r')
    await vi.waitFor(() => expect(t.state.status).toBe('attached'))
    expect(client.callsOf('view.open').at(-1)).toMatchObject({ view: 'main' })
  })

  it('reattaches after the link to the core came back', async () => {
    const { client, t } = setup({ value: 'running' })
    await t.attach(false)
    t.reconnected()
    await vi.waitFor(() => expect(client.callsOf('view.open')).toHaveLength(2))
    await vi.waitFor(() => expect(t.currentStream).toBe('st2'))
  })

  it('mounts with the DOM renderer where WebGL is missing, copies the selection and pastes', async () => {
    const { client, t } = setup({ value: 'running' })
    const host = document.createElement('div')
    document.body.appendChild(host)
    t.mount(host)
    expect(t.state.renderer).toBe('dom')
    expect(host.querySelector('.xterm')).not.toBeNull()
    await t.attach(false)
    client.clipboard = 'pasted text'
    await t.paste()
    expect(client.callsOf('stream.write').map((w) => unb64(w.data))).toEqual(['pasted text'])
    expect(await t.copy()).toBe(false)
    client.emit('stream.data', { streamId: 'st1', fd: 1, data: b64('copy me') })
    await vi.waitFor(() => expect(t.text()).toContain('copy me'))
    t.term.selectAll()
    expect(await t.copy()).toBe(true)
    expect(client.clipboard).toContain('copy me')
  })

  it('closing the tab closes only its stream', async () => {
    const { client, t } = setup({ value: 'running' })
    await t.attach(false)
    t.close()
    expect(client.callsOf('stream.close')).toEqual([{ streamId: 'st1' }])
    expect(client.callsOf('view.close' as never)).toEqual([])
    expect(t.state.status).toBe('closed')
  })
})
