// A developer's day in the UI, in a real browser engine (Debian's Chromium) against `berth serve`
// on the real core and engines. Screenshots of each screen land in test-results/ui/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeViolations, axeWhenShown, loadAxe } from '../support/axe'
import { BerthHome, until } from '../support/berth'
import { activeTerminal, openBrowser, screenshot, serveUi, type Browser, type Served } from '../support/browser'
import { ensureRendererBuilt } from '../support/renderer-build'
import { testHost } from '../support/testhost'

describe('the UI in Chromium', () => {
  const berth = new BerthHome('ui')
  let served: Served
  let browser: Browser
  let sessionId = ''

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

  it('refuses an address without the right token', async () => {
    const { page } = browser
    const wrong = served.url.replace(/\/[A-Za-z0-9_-]+\/$/, '/not-the-token/')
    const res = await page.goto(wrong)
    expect(res?.status()).toBe(403)
    expect(await page.textContent('body')).toContain('needs the token that `berth serve` printed')
    await screenshot(page, '00-wrong-token')
    const bare = await page.goto(`http://127.0.0.1:${served.port}/`)
    expect(bare?.status()).toBe(403)
  })

  it('starts empty and says what to do', async () => {
    const { page } = browser
    await page.goto(served.url)
    await page.getByText('No sessions yet').waitFor()
    await page.getByText('Connected to Berth').waitFor()
    // the first run says which engine Berth took and why, as berth doctor does
    const checks = page.getByRole('region', { name: 'Berth on this machine' })
    await checks.getByText(/^Docker .* on \/var\/run\/docker\.sock: /).waitFor({ timeout: 15_000 })
    await checks.getByText('Sleep hook').waitFor()
    // the connection is held by a worker, which drains it while the page is busy drawing
    expect(page.workers().map((w) => w.url()).some((u) => /socket-worker/.test(u))).toBe(true)
    await screenshot(page, '01-sessions-empty')
  })

  it('creates a session whose terminal computes 6*7', async () => {
    const { page } = browser
    await page.keyboard.press('n')
    const dialog = page.getByRole('dialog', { name: 'New session' })
    await dialog.getByLabel('image', { exact: true }).fill(testHost().baseImage)
    await dialog.getByLabel('name').fill('e2e-dev')
    await dialog.getByLabel('environment').fill('GREETING=hello from the UI')
    await screenshot(page, '02-new-session')
    await dialog.getByRole('button', { name: 'Create' }).click()
    await page.locator('.terminal-pane[data-status="attached"]').waitFor({ timeout: 90_000 })
    sessionId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!)
    expect(sessionId).toMatch(/^[a-z0-9]{10}$/)
    await page.locator('.xterm').click()
    await page.keyboard.type('echo $((6*7)); echo "$GREETING"\n')
    await until(async () => /^42$/m.test((await activeTerminal(page)).text), 'the terminal to show 42')
    const t = await activeTerminal(page)
    expect(t.text).toContain('hello from the UI')
    expect(t.renderer === 'webgl' || t.renderer === 'dom').toBe(true)
    // the view's shell has the size of the pane the terminal was fitted to
    await page.keyboard.type('stty size\n')
    await until(async () => new RegExp(`^${t.rows} ${t.cols}$`, 'm').test((await activeTerminal(page)).text), `stty to say ${t.rows} ${t.cols}`)
    // the session's events are listed beside the terminal, and its ssh line is ready to copy
    await page.getByRole('list', { name: 'session events' }).getByText('create: creating → running').waitFor()
    const shown = await berth.call('session.show', { id: sessionId })
    expect(shown.sshLine).toMatch(/^ssh /)
    expect(await page.getByLabel('ssh line').getByTestId('copy-text').textContent()).toBe(shown.sshLine)
    await screenshot(page, '03-session-terminal')
  })

  it('keeps the shell when its tab closes, and brings the output back when the view reopens', async () => {
    const { page } = browser
    await page.keyboard.type('export KEPT=yes; seq 1 200 | sed "s/^/row-/"\n')
    await until(async () => /row-200/.test((await activeTerminal(page)).text), 'the rows to print')
    await page.keyboard.press('Control+Shift+W')
    await page.getByText('No terminal open').waitFor()
    const reopen = page.getByLabel('reopen a view')
    await reopen.selectOption('main')
    await page.locator('.terminal-pane[data-status="attached"]').waitFor()
    // the early rows come back from the view's history, into the terminal's scrollback
    await until(async () => /row-1\n/.test((await activeTerminal(page)).text), 'the history of the view to come back')
    await page.locator('.xterm').click()
    await page.keyboard.type('echo "kept=$KEPT"\n')
    await until(async () => /kept=yes/.test((await activeTerminal(page)).text), 'the same shell to answer')
    // a second terminal is another view
    await page.keyboard.press('Control+Shift+T')
    await page.locator('.tab[data-view="term-2"]').waitFor()
    await page.locator('.terminal-pane[data-status="attached"]').waitFor()
    await screenshot(page, '04-two-views')
  })

  it('stays responsive through ten seconds of `yes`, and Ctrl-C stops it at once', async () => {
    const { page } = browser
    await page.locator('.xterm').click()
    // the longest stretch the page's main thread was blocked, measured in the page
    await page.evaluate(() => {
      const w = globalThis as unknown as { __maxGap: number; __last: number; __tick: () => void }
      w.__maxGap = 0
      w.__last = performance.now()
      const tick = () => {
        const now = performance.now()
        w.__maxGap = Math.max(w.__maxGap, now - w.__last)
        w.__last = now
        setTimeout(tick, 10)
      }
      tick()
    })
    await page.keyboard.type('yes\n')
    const started = Date.now()
    while (Date.now() - started < 10_000) {
      // the UI answers while the flood runs: switching screens and back
      await page.keyboard.press('Control+3')
      await page.getByRole('heading', { name: 'Servers', exact: true }).waitFor({ timeout: 5000 })
      await page.goBack()
      await page.locator('.terminal-pane').waitFor({ timeout: 5000 })
    }
    await page.locator('.xterm').click()
    const interrupted = Date.now()
    await page.keyboard.press('Control+C')
    await page.keyboard.type('echo "stopped-$((1+1))"\n')
    await until(async () => /stopped-2/.test((await activeTerminal(page)).text), 'the shell to answer after Ctrl-C', 10_000)
    const stopMs = Date.now() - interrupted
    const maxGap = await page.evaluate(() => (globalThis as unknown as { __maxGap: number }).__maxGap)
    console.log(`yes flood: main thread blocked at most ${maxGap.toFixed(0)} ms; Ctrl-C answered in ${stopMs} ms`)
    expect(stopMs).toBeLessThan(3000)
    expect(maxGap).toBeLessThan(1000)
    await screenshot(page, '05-after-yes')
  })

  it('pauses and resumes from the list, and the terminal reattaches with its earlier output', async () => {
    const { page } = browser
    await page.keyboard.press('Control+1')
    const row = page.locator(`tr[data-session="${sessionId}"]`)
    await row.getByRole('button', { name: 'Pause' }).click()
    await row.locator('[data-state="paused"]').waitFor({ timeout: 120_000 })
    const label = await row.locator('.badge').textContent()
    console.log(`paused from the UI: ${label}`)
    expect(label).toMatch(/^paused \((memory|frozen|disk)/)
    await page.getByText(/paused in [\d.]+ s/).waitFor()
    await screenshot(page, '06-paused')
    await row.getByRole('button', { name: 'Resume' }).click()
    await row.locator('[data-state="running"]').waitFor({ timeout: 120_000 })
    await row.getByRole('button', { name: 'Open' }).click()
    await page.locator('.terminal-pane[data-status="attached"]').waitFor({ timeout: 30_000 })
    // the earlier output is still there (the history is written in slices, the last lines last), and
    // the shell is the same one when memory was kept
    await until(async () => (await activeTerminal(page)).text.includes('stopped-2'), 'the earlier output to come back', 10_000)
    await page.locator('.tab[data-view="main"]').click()
    await page.locator('.terminal-pane[data-status="attached"]').waitFor({ timeout: 30_000 })
    await until(async () => (await activeTerminal(page)).text.includes('kept=yes'), 'the main view to come back', 10_000)
    await page.locator('.xterm').click()
    await page.keyboard.type('echo "after=$KEPT"\n')
    const expected = label!.startsWith('paused (disk') ? /after=$/m : /after=yes/
    await until(async () => expected.test((await activeTerminal(page)).text), 'the resumed shell to answer')
    await screenshot(page, '07-resumed')
  })

  it('takes a snapshot and starts a session from it in the snapshot browser', async () => {
    const { page } = browser
    await page.getByRole('button', { name: 'more for e2e-dev' }).click()
    await page.getByRole('menuitem', { name: 'Snapshot…' }).click()
    const dialog = page.getByRole('dialog', { name: 'Snapshot e2e-dev' })
    await dialog.getByLabel('Name').fill('e2e-snap')
    await dialog.getByRole('button', { name: 'Take the snapshot' }).click()
    await page.getByText(/Snapshot e2e-snap:v1 taken/).waitFor({ timeout: 120_000 })
    await page.keyboard.press('Control+2')
    const row = page.locator('tr[data-snapshot="e2e-snap:v1"]')
    await row.waitFor()
    expect(await row.textContent()).toContain('e2e-dev')
    await screenshot(page, '08-snapshots')
    await row.getByRole('button', { name: 'New session' }).click()
    const create = page.getByRole('dialog', { name: 'New session from e2e-snap:v1' })
    await create.getByLabel('Name').fill('from-snap')
    // axe runs the moment the dialog's progress bar appears, and the bar must stay through the run
    await loadAxe(page)
    const axed = axeWhenShown(page, '[role=dialog] [role=status] [role=progressbar]')
    await create.getByRole('button', { name: 'Create the session' }).click()
    // the dialog stays and says how it goes until the session runs
    await create.getByRole('status').waitFor({ timeout: 10_000 })
    const a11y = await axed
    console.log(`axe on the dialog's progress (${a11y.first} … ${a11y.last}): ${a11y.ms} ms`)
    expect(a11y.stayed).toBe(true)
    expect(a11y.violations).toEqual([])
    await page.getByRole('heading', { name: 'from-snap' }).waitFor({ timeout: 180_000 })
    await create.waitFor({ state: 'detached' })
    await page.locator('.terminal-pane[data-status="attached"]').waitFor({ timeout: 60_000 })
    await page.locator('.xterm').click()
    await page.keyboard.type('echo "snap=$((40+2)) kept=$KEPT"\n')
    await until(async () => /snap=42/.test((await activeTerminal(page)).text), 'the session from the snapshot to answer')
    const s = await berth.call('session.show', { id: 'from-snap' })
    console.log(`session from a snapshot: ${s.origin?.memory ? 'memory came along' : `booted from disk (${s.origin?.note ?? 'no note'})`}`)
    await screenshot(page, '09-session-from-snapshot')
  })

  it('adds the office server after showing its host key fingerprint', async () => {
    const { page } = browser
    const h = testHost()
    await page.keyboard.press('Control+3')
    await page.getByRole('heading', { name: 'Servers', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Add a server' }).click()
    const dialog = page.getByRole('dialog', { name: 'Add a server' })
    await dialog.getByLabel('server name').fill('office')
    await dialog.getByLabel('ssh address').fill(h.officeUrl)
    await dialog.getByLabel('identity file').fill(h.officeIdentity)
    await dialog.getByRole('button', { name: 'Continue' }).click()
    const fp = dialog.getByTestId('fingerprint')
    await fp.waitFor({ timeout: 30_000 })
    expect(await fp.textContent()).toBe(h.officeFingerprint)
    // nothing is stored before the user confirms
    expect((await berth.call('server.list', {})).map((s) => s.name)).toEqual(['local'])
    await screenshot(page, '10-confirm-fingerprint')
    await dialog.getByRole('button', { name: 'The fingerprint matches: add' }).click()
    await dialog.waitFor({ state: 'detached', timeout: 60_000 })
    const row = page.locator('tr[data-server="office"]')
    await row.getByText('connected').waitFor()
    await row.getByText(/ms · Docker/).waitFor({ timeout: 30_000 })
    expect(await row.locator('.fp').textContent()).toBe(h.officeFingerprint)
    await screenshot(page, '11-servers')
  })

  it("lists a session's detached jobs with their logs, and says where its replica is and how current", async () => {
    const { page } = browser
    // a build started from a script, detached from any terminal
    const started = await berth.run(['exec', '--detach', 'e2e-dev', '--', 'sh', '-c', 'echo "built step 1"; echo "built step 2"; exit 3'])
    expect(started.code).toBe(0)
    const job = started.stdout.trim()
    await until(async () => ((await berth.json(['jobs', 'e2e-dev']))[0]?.state === 'exited' ? true : undefined), 'the job to end', 30_000)
    // a copy of the session on the office server, made after a durable pause
    await berth.json(['session', 'set', 'e2e-dev', '--replicate-to', 'office'])
    await berth.json(['pause', 'e2e-dev', '--wait', '--no-memory'], { timeoutMs: 180_000 })
    await berth.json(['replica', 'sync', 'e2e-dev'], { timeoutMs: 300_000 })
    await berth.json(['resume', 'e2e-dev'], { timeoutMs: 180_000 })

    await page.keyboard.press('Control+1')
    const row = page.locator(`tr[data-session="${sessionId}"]`)
    await row.locator('[data-state="running"]').waitFor({ timeout: 30_000 })
    await row.getByRole('button', { name: 'Open' }).click()
    const jobs = page.getByRole('list', { name: 'session jobs' })
    await jobs.getByText(/^exited 3 · .* · sh -c/).waitFor({ timeout: 15_000 })
    await jobs.getByRole('button', { name: job }).click()
    const log = page.getByLabel(`log of job ${job}`)
    await until(async () => (/built step 1\nbuilt step 2/.test((await log.textContent()) ?? '') ? true : undefined), "the job's log to show", 15_000)
    const replica = page.getByRole('region', { name: 'replica' })
    await replica.getByText(/^disk copy on office of .+/).waitFor({ timeout: 15_000 })
    await screenshot(page, '11b-jobs-and-replica')
    expect(await axeViolations(page)).toEqual([])
  })

  it('shows the settings, the snapshots and the sessions list, and finishes the session', async () => {
    const { page } = browser
    await page.keyboard.press('Control+4')
    await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor()
    await page.getByLabel(/Pause only sessions marked auto-pause/).click()
    await until(async () => (await berth.call('settings.get', {})).onSleep === 'marked', 'the setting to be saved')
    await screenshot(page, '12-settings')
    await page.keyboard.press('Control+2')
    await page.getByRole('heading', { name: 'Snapshots', exact: true }).waitFor()
    await page.getByText('e2e-snap:v1').first().waitFor()
    await screenshot(page, '13-snapshots-named')
    await page.keyboard.press('Control+1')
    await page.getByRole('link', { name: 'Sessions' }).click()
    const row = page.locator(`tr[data-session="${sessionId}"]`)
    await row.getByText('running').waitFor()
    await screenshot(page, '14-sessions')
    for (const name of ['e2e-dev', 'from-snap']) {
      await page.getByRole('button', { name: `more for ${name}` }).click()
      await page.getByRole('menuitem', { name: 'Finish…' }).click()
      await page.getByRole('dialog', { name: `Finish ${name}?` }).getByRole('button', { name: 'Finish' }).click()
      await page.locator(`tr:has-text("${name}")`).waitFor({ state: 'detached', timeout: 60_000 })
    }
    expect((await berth.call('session.show', { id: sessionId })).state).toBe('finished')
    await page.getByText('No session matches these filters').waitFor()
  })
})
