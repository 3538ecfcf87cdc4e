// The UI in Debian's Chromium (never a downloaded browser), driven by playwright-core, against
// `berth serve` on the real core.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { BIN, ROOT, type BerthHome } from './berth'

export const CHROMIUM = '/usr/bin/chromium'
export const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run']
export const SCREENSHOTS = join(ROOT, 'test-results', 'ui')

export interface Served {
  child: ChildProcess
  url: string
  port: number
  stop(): Promise<void>
}

/** Runs `berth serve --port 0` and reads the URL it prints. */
/** `berth serve` for BERTH's home; BIN: another build's bin/berth (a benchmark's baseline). */
export function serveUi(berth: BerthHome, bin = BIN): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0'], { env: berth.env() })
    let out = ''
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^(http:\/\/127\.0\.0\.1:(\d+)\/[A-Za-z0-9_-]+\/)\n/.exec(out)
      if (m)
        resolve({
          child,
          url: m[1]!,
          port: Number(m[2]),
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done()
              child.once('exit', () => done())
              child.kill('SIGINT')
            }),
        })
    })
    child.on('exit', (code) => reject(new Error(`berth serve exited ${code}: ${err}`)))
  })
}

export interface Browser {
  context: BrowserContext
  page: Page
  /** what the page printed to its console and its errors */
  console: string[]
  close(): Promise<void>
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'berth-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport: { width: 1360, height: 860 },
  })
  const page = context.pages()[0] ?? (await context.newPage())
  const lines: string[] = []
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`))
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`))
  return {
    context,
    page,
    console: lines,
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) })
}

export interface TerminalInfo {
  key: string
  status: string
  view: string | undefined
  renderer: 'webgl' | 'dom'
  persistent: boolean
  problem: string | null
  text: string
  cols: number
  rows: number
}

/** The page's terminals and their text (scrollback included). */
export function terminals(page: Page): Promise<TerminalInfo[]> {
  return page.evaluate(() => (globalThis as unknown as { berthDebug: { terminals(): TerminalInfo[] } }).berthDebug.terminals())
}

export async function activeTerminal(page: Page): Promise<TerminalInfo> {
  const key = await page.locator('.terminal-pane').getAttribute('data-terminal')
  const t = (await terminals(page)).find((x) => x.key === key)
  if (!t) throw new Error('no active terminal')
  return t
}
