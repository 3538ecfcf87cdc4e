// Terminals are views: tmux sessions inside the container. A developer closes a terminal tab and
// opens it again later: the shell is the same one, with its variables and its earlier output.
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectOrStart, type ControlClient } from '../../src/main/doors/control-client'
import { BerthHome, ROOT, until } from '../support/berth'
import { testHost } from '../support/testhost'

/** A terminal as the UI drives it: a view stream whose output is collected and acknowledged. */
class Term {
  out = ''
  exit: { exitCode: number | null; error?: string | undefined } | undefined
  constructor(
    private readonly c: ControlClient,
    readonly streamId: string,
  ) {}
  type(s: string) {
    return this.c.call('stream.write', { streamId: this.streamId, data: Buffer.from(s).toString('base64') })
  }
  async waitFor(re: RegExp, what = re.source) {
    await until(() => re.test(this.out), `terminal output ${what} (got ${JSON.stringify(this.out.slice(-300))})`, 20_000)
  }
}

async function openTerm(c: ControlClient, terms: Map<string, Term>, args: { id: string; view?: string; history?: boolean; cols?: number; rows?: number }) {
  const r = await c.call('view.open', { cols: 100, rows: 30, ...args })
  const t = terms.get(r.streamId) ?? new Term(c, r.streamId)
  terms.set(r.streamId, t)
  return { ...r, term: t }
}

describe('views: terminals that survive their tab', () => {
  const berth = new BerthHome('views')
  let c: ControlClient
  const terms = new Map<string, Term>()

  beforeAll(async () => {
    c = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    c.on('stream.data', (d) => {
      let t = terms.get(d.streamId)
      // output can arrive before view.open answers: keep it for the terminal that claims it
      if (!t) terms.set(d.streamId, (t = new Term(c, d.streamId)))
      const bytes = Buffer.from(d.data, 'base64')
      t.out += bytes.toString('utf8')
      void c.call('stream.ack', { streamId: d.streamId, bytes: bytes.length }).catch(() => undefined)
    })
    c.on('stream.exit', (e) => {
      const t = terms.get(e.streamId)
      if (t) t.exit = { exitCode: e.exitCode, error: e.error }
    })
  })
  afterAll(async () => {
    c?.close()
    await berth.cleanup()
  })

  it('keeps the shell, its variables and its output when the terminal closes and reopens', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'viewer'])
    expect(await c.call('view.list', { id: s.id })).toEqual([])

    const first = await openTerm(c, terms, { id: s.id })
    expect(first).toMatchObject({ view: 'main', persistent: true })
    await first.term.type('export MARK=still-here; for i in $(seq 1 60); do echo "line-$i"; done; echo "answer=$((6*7))"\r')
    await first.term.waitFor(/answer=42/)

    const listed = await c.call('view.list', { id: s.id })
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ name: 'main', attached: 1 })
    expect(Date.parse(listed[0]!.createdAt!)).toBeGreaterThan(Date.now() - 120_000)

    // closing the tab ends the stream, not the shell
    await c.call('stream.close', { streamId: first.streamId })
    await until(async () => (await c.call('view.list', { id: s.id }))[0]?.attached === 0, 'the view to have no terminal attached')

    // a fresh terminal asks for the history: the early lines (scrolled out of the screen) come back
    const again = await openTerm(c, terms, { id: s.id, view: 'main', history: true })
    await again.term.waitFor(/line-1\r?\n/, 'line-1 from the history')
    await again.term.waitFor(/answer=42/)
    await again.term.type('echo "mark=$MARK"\r')
    await again.term.waitFor(/mark=still-here/)

    // a second view is another shell, named after the first free name
    const second = await openTerm(c, terms, { id: s.id })
    expect(second.view).toBe('term-2')
    await second.term.type('echo "mark=[$MARK]"\r')
    await second.term.waitFor(/mark=\[\]/)
    expect((await c.call('view.list', { id: s.id })).map((v) => v.name)).toEqual(['main', 'term-2'])

    // resizing reaches the shell
    await c.call('stream.resize', { streamId: second.streamId, cols: 91, rows: 17 })
    await until(async () => {
      await second.term.type('stty size\r')
      return /17 91/.test(second.term.out)
    }, 'stty to report the new size')

    // ending a view ends its shell: the terminal's stream ends with it
    expect(await c.call('view.close', { id: s.id, view: 'term-2' })).toEqual({ closed: true })
    await until(() => second.term.exit, 'the closed view to end its terminal')
    expect((await c.call('view.list', { id: s.id })).map((v) => v.name)).toEqual(['main'])
    expect(await c.call('view.close', { id: s.id, view: 'term-2' })).toEqual({ closed: false })

    // typing `exit` ends the view too
    await again.term.type('exit\r')
    await until(() => again.term.exit, 'the exited shell to end its terminal')
    expect(await c.call('view.list', { id: s.id })).toEqual([])

    // the session's events are there for the UI
    const events = await c.call('session.events', { id: s.id })
    expect(events.map((e) => e.kind)).toContain('created')
    expect(events.some((e) => e.to === 'running')).toBe(true)
    await berth.json(['finish', s.id])
  })

  it('detaches terminals for a pause and reattaches them to the same shell after the resume', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'pauser'])
    const t = await openTerm(c, terms, { id: s.id })
    await t.term.type('export BEFORE=paused-and-back; echo "ready-$((20+22))"\r')
    await t.term.waitFor(/ready-42/)
    const paused = await c.call('session.pause', { id: s.id, wait: true })
    expect(paused).toMatchObject({ paused: true, mode: 'memory' })
    // the pause detached the terminal: its stream ended with the reason
    await until(() => t.term.exit, 'the pause to detach the terminal')
    expect(t.term.exit!.error).toContain('pausing')
    await expect(c.call('view.open', { id: s.id, view: 'main', cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'conflict' })
    expect(await c.call('session.resume', { id: s.id })).toMatchObject({ resumed: true, mode: 'memory' })
    const back = await openTerm(c, terms, { id: s.id, view: 'main' })
    await back.term.waitFor(/ready-42/, 'the earlier output, redrawn by tmux')
    await back.term.type('echo "value=$BEFORE"\r')
    await back.term.waitFor(/value=paused-and-back/)
    await c.call('stream.close', { streamId: back.streamId })
    await berth.json(['finish', s.id])
  })

  it('detaches the terminals of a window that goes away, leaving their views running', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().baseImage])
    const other = await connectOrStart(berth.home, join(ROOT, 'out', 'cli', 'berth.cjs'))
    await other.call('view.open', { id: s.id, view: 'left-open', cols: 80, rows: 24 })
    await until(async () => (await c.call('view.list', { id: s.id }))[0]?.attached === 1, 'the terminal to attach')
    other.close()
    await until(async () => (await c.call('view.list', { id: s.id }))[0]?.attached === 0, 'the dropped window to detach its terminal')
    expect((await c.call('view.list', { id: s.id })).map((v) => v.name)).toEqual(['left-open'])
    await berth.json(['finish', s.id])
  })

  it('opens a plain shell where the image has no tmux, and says so', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    const t = await openTerm(c, terms, { id: s.id })
    expect(t.persistent).toBe(false)
    await t.term.type('echo "sum=$((40+2))"\r')
    await t.term.waitFor(/sum=42/)
    expect(t.term.out).toContain('no tmux')
    await c.call('stream.close', { streamId: t.streamId })
    await berth.json(['finish', s.id])
  })

  it('refuses terminals of sessions that do not run, and bad view names', async () => {
    const s = await berth.json(['session', 'create', '--image', testHost().tinyImage])
    await berth.json(['finish', s.id])
    await expect(c.call('view.open', { id: s.id, cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'refused', message: `session ${s.name} finished` })
    await expect(c.call('view.open', { id: 'nope', cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'not_found' })
    await expect(c.call('view.open', { id: s.id, view: 'Bad Name', cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'usage' })
    await expect(c.call('view.open', { id: s.id, view: "x'; rm -rf /", cols: 80, rows: 24 })).rejects.toMatchObject({ code: 'usage' })
  })
})
