// The snapshot browser through the CLI: a session's timeline with what depends on each checkpoint
// and the lineage across sessions; what changed between two snapshots, listed by the server from
// the committed layers and workspace copies, paged; a text diff of one file; names the session
// chose (a newline, a tab, a link out of the snapshot) reach nothing on the host.
import { afterAll, describe, expect, it } from 'vitest'
import { BerthHome, localDocker } from '../support/berth'
import { testHost } from '../support/testhost'

interface Entry {
  status: string
  type: string
  size: number
  path: string
}

const sh = (berth: BerthHome, session: string, script: string) => berth.run(['exec', session, '--', 'sh', '-c', script])

describe('the snapshot browser', () => {
  const berth = new BerthHome('browse')
  const image = testHost().tinyImage
  afterAll(() => berth.cleanup())

  it('lists what changed between two snapshots, pages it, diffs one file, and keeps the host out of reach', async () => {
    await berth.json(['session', 'create', '--image', image, '--name', 'tl'])
    await sh(berth, 'tl', 'mkdir -p /opt/app && echo one > /opt/app/layer.txt && printf "hello\\nworld\\n" > /workspace/notes.txt && echo bye > /workspace/gone.txt && echo same > /workspace/same.txt')
    expect((await berth.json(['snapshot', 'create', 'tl', '--name', 'tl'])).id).toBe('tl:v1')

    const wrote = await sh(
      berth,
      'tl',
      [
        'printf "hello\\nthere, a longer line\\n" > /workspace/notes.txt',
        'rm /workspace/gone.txt',
        'echo new > /workspace/added.txt',
        'echo two-changed > /opt/app/layer.txt',
        'echo fresh > /opt/app/new.txt',
        'printf x > "/workspace/tab\tname"',
        'printf x > "/workspace/line\nD f 1\tforged"',
        'ln -s /etc/shadow /workspace/shadow-link',
      ].join(' && '),
    )
    expect(wrote.stderr).toBe('')
    expect(wrote.code).toBe(0)
    const v2 = await berth.json(['snapshot', 'create', 'tl', '--name', 'tl'])
    expect(v2).toMatchObject({ id: 'tl:v2', parentSnapshot: 'tl:v1' })

    // one snapshot: since the checkpoint before it
    const page = await berth.json(['snapshot', 'diff', 'tl:v2'])
    expect(page).toMatchObject({ from: 'tl:v1', to: 'tl:v2', next: null })
    const by = new Map((page.items as Entry[]).map((e) => [e.path, e]))
    expect(by.get('/workspace/notes.txt')).toMatchObject({ status: 'changed', type: 'file' })
    expect(by.get('/workspace/gone.txt')).toMatchObject({ status: 'deleted' })
    expect(by.get('/workspace/added.txt')).toMatchObject({ status: 'added', size: 4 })
    expect(by.get('/opt/app/layer.txt')).toMatchObject({ status: 'changed', size: 12 })
    expect(by.get('/opt/app/new.txt')).toMatchObject({ status: 'added' })
    expect(by.get('/workspace/tab\tname')).toMatchObject({ status: 'added' })
    expect(by.get('/workspace/shadow-link')).toMatchObject({ status: 'added', type: 'link' })
    expect(by.has('/workspace/same.txt')).toBe(false)
    // a name with a newline cannot be one line of the list: it is left out, and forges nothing
    expect([...by.keys()].some((p) => p.includes('forged'))).toBe(false)
    expect([...by.keys()].some((p) => p.includes('\n'))).toBe(false)
    expect(page.total).toBe(page.items.length)

    // two snapshots named, a page at a time (the server kept the list)
    const p1 = await berth.json(['snapshot', 'diff', 'tl:v1', 'tl:v2', '--limit', '3'])
    expect(p1.items).toHaveLength(3)
    expect(p1).toMatchObject({ total: page.total, next: 3, cached: true })
    const p2 = await berth.json(['snapshot', 'diff', 'tl:v1', 'tl:v2', '--limit', '3', '--offset', '3'])
    expect([...p1.items, ...p2.items].map((e: Entry) => e.path)).toEqual(page.items.slice(0, 6).map((e: Entry) => e.path))
    const human = await berth.run(['snapshot', 'diff', 'tl:v2', '--limit', '2'])
    expect(human.code).toBe(0)
    expect(human.stdout).toContain(`${page.total} changes from tl:v1 to tl:v2`)
    expect(human.stdout).toContain('more: berth snapshot diff tl:v2 --offset 2 --limit 2')

    // a text diff of one file; a link that leads out of the snapshot shows nothing of the host
    const text = await berth.json(['snapshot', 'diff', 'tl:v2', '--path', '/workspace/notes.txt'])
    expect(text.kind).toBe('diff')
    expect(text.text).toContain('-world')
    expect(text.text).toContain('+there, a longer line')
    const layer = await berth.run(['snapshot', 'diff', 'tl:v1', 'tl:v2', '--path', '/opt/app/layer.txt'])
    expect(layer.stdout).toContain('+two-changed')
    const link = await berth.json(['snapshot', 'diff', 'tl:v2', '--path', '/workspace/shadow-link'])
    expect(link.text ?? '').not.toMatch(/root:/)
    const escape = await berth.run(['snapshot', 'diff', 'tl:v2', '--path', '/workspace/../../etc/shadow'])
    expect(escape.code).toBe(2)

    // the first snapshot is compared with the image its session started from
    const first = await berth.json(['snapshot', 'diff', 'tl:v1'])
    expect(first.from).toBe(image)
    expect((first.items as Entry[]).map((e) => e.path)).toEqual(expect.arrayContaining(['/workspace/notes.txt', '/opt/app/layer.txt']))
  })

  it("draws a session's timeline and lineage, with what depends on each checkpoint; tested only after a test restore", async () => {
    const child = await berth.json(['session', 'create', '--from', 'tl:v1', '--name', 'tl-child'])
    const t = await berth.json(['snapshot', 'timeline', 'tl'])
    expect(t.session.name).toBe('tl')
    expect(t.items.map((s: { id: string }) => s.id)).toEqual(['tl:v1', 'tl:v2'])
    const v1 = t.items[0]
    expect(v1.dependents).toEqual(
      expect.arrayContaining([
        { kind: 'snapshot', id: 'tl:v2', name: 'tl:v2' },
        { kind: 'session', id: child.id, name: 'tl-child' },
      ]),
    )
    expect(v1.testRestored).toBe(false)
    expect(t.lineage.map((n: { name: string }) => n.name)).toEqual(['tl', 'tl-child'])
    expect(t.lineage[1]).toMatchObject({ parent: t.session.id, snapshot: 'tl:v1', verb: 'create' })

    // the child's own timeline shows the same tree, drawn from its root
    const ofChild = await berth.json(['snapshot', 'timeline', 'tl-child'])
    expect(ofChild.lineage.map((n: { name: string }) => n.name)).toEqual(['tl', 'tl-child'])
    expect((await berth.run(['snapshot', 'timeline', 'tl'])).stdout).toMatch(/tl:v1 .* tl:v2, session tl-child/)
    const human = await berth.run(['snapshot', 'timeline', 'tl-child'])
    expect(human.stdout).toContain('no checkpoints of tl-child yet')
    expect(human.stdout).toMatch(/lineage:\n- tl \[running, local\]\n {2}\* tl-child \[running, local\] \(create from tl:v1\)/)

    expect((await berth.json(['snapshot', 'test', 'tl:v1'])).snapshot.testRestored).toBe(true)
    await berth.json(['finish', 'tl-child'])
  })

  it('says why when a snapshot it compares has lost its image on the server', async () => {
    const v3 = await berth.json(['snapshot', 'create', 'tl', '--name', 'lost'])
    const homeId = await berth.homeId()
    await localDocker().getImage(`berth/snapshot:${homeId}.lost.v1`).remove({ force: true })
    const r = await berth.run(['snapshot', 'diff', v3.id])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('no image')
    expect(r.stderr).toContain('lost:v1')
    // the others still compare
    expect((await berth.json(['snapshot', 'diff', 'tl:v2'])).to).toBe('tl:v2')
  })
  it("names a pause's checkpoint one way in its answer, its events and the list, and keeps it listed after the resume", async () => {
    const s = await berth.json(['session', 'create', '--image', image, '--name', 'pz'])
    const paused = await berth.json(['pause', 'pz', '--wait'])
    expect(paused.snapshot).toBe('pz.pause:v1')
    const events = (await berth.json(['session', 'events', 'pz'])) as Array<{ kind: string; detail: { snapshot?: string } }>
    const named = [...new Set(events.filter((e) => e.detail.snapshot).map((e) => e.detail.snapshot))]
    expect(named).toEqual(['pz.pause:v1'])
    const listed = async () => ((await berth.json(['snapshot', 'ls', '--session', 'pz'])).items as Array<{ id: string; reason: string; kind: string; note: string | null }>)
    const whilePaused = (await listed()).find((x) => x.id === 'pz.pause:v1')
    expect(whilePaused).toMatchObject({ reason: 'pause', kind: paused.mode === 'memory' ? 'memory+disk' : 'disk' })
    expect((await berth.run(['snapshot', 'ls', '--session', 'pz'])).stdout).toContain('pz.pause:v1')

    // resumed: still listed, as the pause the session went on from; nothing can be made from it
    await berth.json(['resume', 'pz'])
    const after = (await listed()).find((x) => x.id === 'pz.pause:v1')
    expect(after).toMatchObject({ reason: 'pause', kind: whilePaused!.kind })
    expect(after!.note).toMatch(/the session resumed from it/)
    expect((await berth.run(['snapshot', 'show', 'pz.pause:v1'])).stdout).toMatch(/note: +the checkpoint of a pause; the session resumed from it/)
    expect((await berth.json(['snapshot', 'timeline', 'pz'])).items.map((x: { id: string }) => x.id)).toEqual(['pz.pause:v1'])
    const refused = await berth.run(['session', 'create', '--from', 'pz.pause:v1', '--name', 'pz-child'])
    expect(refused.code).not.toBe(0)
    expect(refused.stderr).toMatch(/checkpoint of a pause/)

    // a second pause: the next name, and both are listed
    expect((await berth.json(['pause', 'pz', '--wait'])).snapshot).toBe('pz.pause:v2')
    expect((await listed()).map((x) => x.id)).toEqual(['pz.pause:v2', 'pz.pause:v1'])
    await berth.json(['finish', s.id])
  })
})
