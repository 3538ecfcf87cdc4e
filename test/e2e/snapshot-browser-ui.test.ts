/// <reference lib="dom" />
// The snapshot browser and the layout for every size and hand, in Chromium against `berth serve` on
// the real core and engine: a session's timeline and lineage, what changed between two snapshots
// with a file's text diff, a rewind from the browser; 800x600 without sideways scrolling; a menu and
// a dialog by keyboard alone; a header that holds still through a pause and a resume, with the
// keyboard back in the terminal after each; axe-core with no violations on each screen and dialog.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeViolations } from '../support/axe'
import { BerthHome, until } from '../support/berth'
import { openBrowser, screenshot, serveUi, type Browser, type Served } from '../support/browser'
import { ensureRendererBuilt } from '../support/renderer-build'
import { testHost } from '../support/testhost'

describe('the snapshot browser and the layout, in Chromium', () => {
  const berth = new BerthHome('ui-browse')
  let served: Served
  let browser: Browser
  let id = ''

  beforeAll(async () => {
    ensureRendererBuilt()
    served = await serveUi(berth)
    browser = await openBrowser()
  })
  afterAll(async () => {
    if (browser) {
      const errors = browser.console.filter((l) => l.startsWith('pageerror'))
      await browser.close()
      expect(errors).toEqual([])
    }
    await served?.stop()
    await berth.cleanup()
  })

  it("shows a session's timeline, what changed between two snapshots and a file's diff, and rewinds from there", async () => {
    id = (await berth.json(['session', 'create', '--image', testHost().tinyImage, '--name', 'browsed'])).id
    await berth.run(['exec', 'browsed', '--', 'sh', '-c', 'echo first > /workspace/keep.txt'])
    await berth.json(['snapshot', 'create', 'browsed', '--name', 'before'])
    await berth.run(['exec', 'browsed', '--', 'sh', '-c', 'printf "written between\\n" > /workspace/between.txt'])
    await berth.json(['snapshot', 'create', 'browsed', '--name', 'after'])
    await berth.json(['session', 'create', '--from', 'before:v1', '--name', 'browsed-child'])

    const { page } = browser
    await page.goto(`${served.url}#/snapshots/${id}`)
    await page.getByRole('heading', { name: 'Snapshots of browsed' }).waitFor({ timeout: 30_000 })
    const timeline = page.getByRole('list', { name: 'checkpoint history' })
    await timeline.getByText('after:v1').waitFor()
    expect(await timeline.locator('strong').allTextContents()).toEqual(['before:v1', 'after:v1'])
    const lineage = page.getByRole('navigation', { name: 'lineage' })
    expect(await lineage.getByText(/create from before:v1/).count()).toBe(1)

    // the newest is selected: the file written between the two snapshots, and its text diff
    await page.getByRole('heading', { name: 'after:v1' }).waitFor()
    await page.getByText('since before:v1.').waitFor({ timeout: 60_000 })
    const files = page.getByRole('list', { name: 'changed files' })
    await files.getByRole('button', { name: '/workspace/between.txt' }).click()
    await page.getByRole('region', { name: 'diff of /workspace/between.txt' }).getByText('+written between').waitFor({ timeout: 30_000 })
    expect(await files.getByText('/workspace/keep.txt').count()).toBe(0)
    await screenshot(page, 'browse-01-diff')
    expect(await axeViolations(page)).toEqual([])

    // the first is kept by the session made from it: deleting it says why
    await timeline.getByRole('button', { name: /before:v1/ }).click()
    await page.getByRole('heading', { name: 'before:v1' }).waitFor()
    await page.getByText(/Kept: browsed-child was made from it/).waitFor()

    // rewind from the browser: the question says the state now is kept first
    await page.getByRole('group', { name: 'actions for before:v1' }).getByRole('button', { name: 'Rewind the session to here…' }).click()
    const ask = page.getByRole('dialog', { name: 'Rewind browsed to before:v1?' })
    await ask.getByText(/its state now is kept as a snapshot first/).waitFor()
    expect(await axeViolations(page)).toEqual([])
    await ask.getByRole('button', { name: 'Rewind' }).click()
    await page.getByText(/browsed is back at before:v1 .*its state before is kept as /).waitFor({ timeout: 120_000 })
    expect((await berth.run(['exec', 'browsed', '--', 'ls', '/workspace'])).stdout).not.toContain('between.txt')
    await until(async () => (await timeline.locator('strong').count()) === 3, 'the kept state to join the timeline')
  })

  it('holds at 800x600: names and actions in view without sideways scrolling, the side panel on demand', async () => {
    const { page } = browser
    await page.setViewportSize({ width: 800, height: 600 })
    await page.goto(`${served.url}#/sessions`)
    const row = page.locator(`tr[data-session="${id}"]`)
    await row.waitFor({ timeout: 30_000 })
    const noSideways = () => page.evaluate(() => Array.from(document.querySelectorAll('.main, html')).every((el) => el.scrollWidth <= el.clientWidth + 1))
    expect(await noSideways()).toBe(true)
    const name = await row.locator('.name-cell').boundingBox()
    expect(name!.width).toBeGreaterThan(120)
    const more = await row.getByRole('button', { name: 'more for browsed' }).boundingBox()
    expect(more!.x + more!.width).toBeLessThanOrEqual(800)
    await screenshot(page, 'browse-02-sessions-800')
    expect(await axeViolations(page)).toEqual([])

    for (const hash of [`#/snapshots/${id}`, '#/snapshots', '#/servers', '#/settings']) {
      await page.goto(`${served.url}${hash}`)
      await page.locator('h1').first().waitFor()
      await page.waitForTimeout(500)
      expect(await noSideways(), `no sideways scrolling on ${hash}`).toBe(true)
      expect(await axeViolations(page), `axe on ${hash}`).toEqual([])
    }

    await page.goto(`${served.url}#/sessions/${id}`)
    await page.getByRole('heading', { name: 'browsed' }).waitFor()
    expect(await page.getByRole('complementary', { name: 'session details' }).isVisible()).toBe(false)
    await page.getByRole('button', { name: 'Details' }).click()
    await page.getByRole('complementary', { name: 'session details' }).waitFor()
    expect(await noSideways()).toBe(true)
    await screenshot(page, 'browse-03-session-800')
    expect(await axeViolations(page)).toEqual([])
    await page.setViewportSize({ width: 1360, height: 860 })
  })

  it('keeps the session header still through a pause and a resume, and gives the keyboard back to the terminal', async () => {
    const { page } = browser
    await page.goto(`${served.url}#/sessions/${id}`)
    await page.getByRole('heading', { name: 'browsed' }).waitFor()
    await page.locator('.terminal-pane').waitFor({ timeout: 30_000 })
    // every 20 ms: the state shown, the header's height and where the terminal starts
    await page.evaluate(() => {
      const w = window as unknown as { samples: Array<{ state: string; head: number; top: number }>; sampler: number }
      w.samples = []
      w.sampler = window.setInterval(() => {
        const head = document.querySelector('.session-head')
        const term = document.querySelector('.terminals')
        const state = document.querySelector('.session-head [data-state]')?.getAttribute('data-state') ?? ''
        if (head && term) w.samples.push({ state, head: head.getBoundingClientRect().height, top: term.getBoundingClientRect().top })
      }, 20)
    })
    const inTerminal = () => page.evaluate(() => !!document.activeElement?.closest('.terminal-pane'))
    const head = page.locator('.session-head')
    await head.getByRole('button', { name: 'Pause', exact: true }).click()
    await head.locator('[data-state="paused"]').waitFor({ timeout: 120_000 })
    await until(inTerminal, 'the focus to come back to the terminal after the pause')
    expect(await axeViolations(page)).toEqual([])
    await head.getByRole('button', { name: 'Resume', exact: true }).click()
    await head.locator('[data-state="running"]').waitFor({ timeout: 120_000 })
    await until(inTerminal, 'the focus to come back to the terminal after the resume')
    const samples = await page.evaluate(() => {
      const w = window as unknown as { samples: Array<{ state: string; head: number; top: number }>; sampler: number }
      clearInterval(w.sampler)
      return w.samples
    })
    const states = [...new Set(samples.map((x) => x.state))]
    console.log(`header through ${states.join(', ')}: heights ${[...new Set(samples.map((x) => x.head))].join(', ')} px in ${samples.length} samples`)
    expect(states).toEqual(expect.arrayContaining(['running', 'paused']))
    expect(states.some((x) => x === 'pausing' || x === 'resuming')).toBe(true)
    expect(new Set(samples.map((x) => x.head)).size).toBe(1)
    expect(new Set(samples.map((x) => x.top)).size).toBe(1)
  })

  it('works by keyboard alone: a menu with the arrow keys, Home, End and Escape; a dialog that keeps the focus', async () => {
    const { page } = browser
    await page.goto(`${served.url}#/sessions`)
    const button = page.locator(`tr[data-session="${id}"]`).getByRole('button', { name: 'more for browsed' })
    await button.focus()
    await page.keyboard.press('Enter')
    const menu = page.getByRole('menu', { name: 'more for browsed' })
    await menu.waitFor()
    const focused = () => page.evaluate(() => document.activeElement?.textContent ?? '')
    const items = await menu.getByRole('menuitem').allTextContents()
    expect(await focused()).toBe(items[0])
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe(items[1])
    await page.keyboard.press('End')
    expect(await focused()).toBe(items.at(-1))
    await page.keyboard.press('ArrowDown')
    expect(await focused()).toBe(items[0])
    await page.keyboard.press('Home')
    expect(await focused()).toBe(items[0])
    expect(await axeViolations(page)).toEqual([])
    await page.keyboard.press('Escape')
    await menu.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('more for browsed')

    // a dialog: Tab goes round inside it, Escape closes it and the focus comes back
    await page.keyboard.press('n')
    const dialog = page.getByRole('dialog', { name: 'New session' })
    await dialog.waitFor()
    expect(await axeViolations(page)).toEqual([])
    for (let i = 0; i < 15; i++) {
      await page.keyboard.press('Tab')
      expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    }
    await page.keyboard.press('Shift+Tab')
    expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'detached' })

    // the add-server dialog: axe on it, its focus kept inside, Escape gives the focus back to its button
    await page.goto(`${served.url}#/servers`)
    const add = page.getByRole('button', { name: 'Add a server' })
    await add.focus()
    await page.keyboard.press('Enter')
    const addDialog = page.getByRole('dialog', { name: 'Add a server' })
    await addDialog.waitFor()
    expect(await axeViolations(page)).toEqual([])
    for (let i = 0; i < 8; i++) await page.keyboard.press('Tab')
    expect(await page.evaluate(() => !!document.activeElement?.closest('[role=dialog]'))).toBe(true)
    await page.keyboard.press('Escape')
    await addDialog.waitFor({ state: 'detached' })
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Add a server')

    // the screens are on Alt+Shift+number, which a browser tab leaves to the page
    await page.keyboard.press('Alt+Shift+Digit4')
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor()
    await page.keyboard.press('Alt+Shift+Digit2')
    await page.getByRole('heading', { name: 'Snapshots', exact: true }).waitFor()
    await berth.json(['finish', 'browsed-child'])
    await berth.json(['finish', 'browsed'])
  })
})
