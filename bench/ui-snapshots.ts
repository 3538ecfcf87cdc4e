// bench/ui, the snapshot browser part (issue 20): a session with 200 checkpoints painted, and a
// diff of 1,000 changed files listed, in the same Chromium as the rest of bench/ui.
//   - timeline: 200 checkpoints seeded in the store for each of two sessions (the browser reads
//     them through snapshot.timeline; nothing on a server is needed to draw them): a fresh page load
//     of #/snapshots/SESSION until all 200 entries are in the page, and a switch between the two
//     sessions inside the page (a hash change) until the other's 200 are;
//   - diff: a real session on the laptop's engine, snapshots before and after writing 1,000 files
//     and a third after nothing: from the third selected (nothing changed) to the second selected,
//     until its 1,000 changed files are in the page (the server lists them from the two committed
//     layers; one page of 1,000).
// Targets (issue 20): each under 1 s.
import type { ControlClient } from '../src/main/doors/control-client'
import { openDatabase } from '../src/main/core/store/database'
import { SnapshotsRepo } from '../src/main/core/store/snapshots-repo'

export const CHECKPOINTS = 200
export const CHANGED_FILES = 1000

/** What a page needs here: a bare Chromium's page. */
interface Page {
  goto(url: string): Promise<unknown>
  evaluate<T>(expression: string): Promise<T>
}

const REASONS = ['pause', 'seal', 'named', 'seal', 'pre-rewind', 'pause', 'fork', 'seal'] as const

/** CHECKPOINTS snapshot rows of a session, oldest first, each after the one before (nothing on a server). */
export function seedCheckpoints(home: string, session: { id: string; name: string }): void {
  const db = openDatabase(home)
  const repo = new SnapshotsRepo(db)
  const now = Date.now()
  db.transaction(() => {
    let parent: string | null = null
    for (let i = 1; i <= CHECKPOINTS; i++) {
      const reason = REASONS[i % REASONS.length]!
      const name = reason === 'named' ? `${session.name}-mark` : `${session.name}.${reason}`
      const version = repo.reserveVersion(name)
      const id = `${name}:v${version}`
      repo.insert({
        id,
        name,
        version,
        kind: i % 3 ? 'disk' : 'memory+disk',
        sessionId: session.id,
        server: 'local',
        imageRef: `berth/snapshot:bench.${name}.v${version}`,
        checkpoint: null,
        volumeRef: null,
        sizeBytes: 1_000_000 + i * 37_000,
        parentSnapshot: parent,
        auto: reason !== 'named',
        testRestored: i % 10 === 0,
        tags: [],
        detail: { sessionName: session.name },
        createdAt: new Date(now - (CHECKPOINTS - i) * 600_000).toISOString(),
        reason,
        state: 'ready',
      })
      parent = id
    }
  })()
  db.close()
}

/** Page code: waits (a frame at a time) until the checkpoint history of NAME holds COUNT entries; the time it saw them. */
const timelinePainted = (name: string, count: number) => `(async () => {
  const deadline = Date.now() + 30000
  for (;;) {
    const heading = [...document.querySelectorAll('h1')].some((h) => h.textContent === 'Snapshots of ${name}')
    const list = document.querySelector('ol[aria-label="checkpoint history"]')
    if (heading && list && list.children.length === ${count}) return performance.now()
    if (Date.now() > deadline) throw new Error('the timeline of ${name} was not painted within 30 s')
    await new Promise((r) => requestAnimationFrame(r))
  }
})()`

/** A fresh page load of URL's browser of A: ms from the navigation's start until its CHECKPOINTS are painted. */
async function loadOnce(page: Page, url: string, a: { id: string; name: string }): Promise<number> {
  await page.goto('about:blank')
  await page.goto(`${url}#/snapshots/${a.id}`)
  return await page.evaluate<number>(timelinePainted(a.name, CHECKPOINTS))
}

/**
 * Fresh page loads of the browser of A (ms from the navigation's start), then switches A <-> B
 * inside the page. With BASELINE (the same history served by another build), its loads alternate
 * with these, side by side in the same browser.
 */
export async function timelinePaint(page: Page, url: string, a: { id: string; name: string }, b: { id: string; name: string }, runs: number, baseline?: string) {
  const load: number[] = []
  const baselineLoad: number[] = []
  for (let i = 0; i < runs; i++) {
    if (baseline) baselineLoad.push(await loadOnce(page, baseline, a))
    load.push(await loadOnce(page, url, a))
  }
  const switches: number[] = []
  for (let i = 0; i < runs; i++) {
    const to = i % 2 ? a : b
    const t0 = await page.evaluate<number>(`(() => { const t = performance.now(); location.hash = '#/snapshots/${to.id}'; return t })()`)
    switches.push((await page.evaluate<number>(timelinePainted(to.name, CHECKPOINTS))) - t0)
  }
  return { load, baselineLoad, switches }
}

async function run(c: ControlClient, id: string, script: string): Promise<void> {
  const opened = await c.call('exec.open', { id, cmd: ['sh', '-c', script] })
  await new Promise<void>((resolve) => c.on('stream.exit', (e) => e.streamId === opened.streamId && resolve()))
}

/** A real session with three snapshots: before, after writing CHANGED_FILES files, and after nothing. */
export async function diffSession(c: ControlClient, image: string): Promise<{ id: string; name: string; changed: string; unchanged: string }> {
  const name = 'bench-diff'
  const s = await c.call('session.create', { image, name })
  await c.call('snapshot.create', { id: s.id, name: 'bench-before' })
  await run(c, s.id, `mkdir -p /workspace/many && i=0; while [ $i -lt ${CHANGED_FILES} ]; do echo "file $i" > /workspace/many/f$i.txt; i=$((i+1)); done`)
  const changed = await c.call('snapshot.create', { id: s.id, name: 'bench-after' })
  const unchanged = await c.call('snapshot.create', { id: s.id, name: 'bench-again' })
  return { id: s.id, name, changed: changed.id, unchanged: unchanged.id }
}

/** Page code: clicks the checkpoint ID, then waits for its changed files to number COUNT (-1: any number); ms from the click. */
const diffListed = (id: string, count: number) => `(async () => {
  const button = [...document.querySelectorAll('ol[aria-label="checkpoint history"] button')].find((b) => b.querySelector('strong')?.textContent === '${id}')
  if (!button) throw new Error('no checkpoint ${id} in the timeline')
  const t0 = performance.now()
  button.click()
  const deadline = Date.now() + 60000
  for (;;) {
    const heading = document.querySelector('#snapshot-details-title')?.textContent === '${id}'
    const list = document.querySelector('ul[aria-label="changed files"]')
    const status = document.querySelector('#changes-title')?.closest('section')?.querySelector('[role=status]')?.textContent ?? ''
    const listed = ${count} < 0 ? /changed since/.test(status) : !!list && list.children.length === ${count}
    if (heading && listed) return performance.now() - t0
    if (Date.now() > deadline) throw new Error('the changes of ${id} were not listed within 60 s: ' + status)
    await new Promise((r) => requestAnimationFrame(r))
  }
})()`

/** The diff of CHANGED_FILES files listed after a click on its snapshot, RUNS times (the unchanged one selected in between). */
export async function diffPaint(page: Page, url: string, d: { id: string; name: string; changed: string; unchanged: string }, runs: number): Promise<number[]> {
  await page.goto('about:blank')
  await page.goto(`${url}#/snapshots/${d.id}`)
  await page.evaluate(timelinePainted(d.name, 3))
  const out: number[] = []
  // the first listing computes the diff on the server; it counts like the others
  for (let i = 0; i < runs; i++) {
    await page.evaluate(diffListed(d.unchanged, -1))
    out.push(await page.evaluate<number>(diffListed(d.changed, CHANGED_FILES)))
  }
  return out
}
