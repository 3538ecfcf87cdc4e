/// <reference lib="dom" />
// axe-core in the page under test. The page's CSP keeps injected script tags out, so axe is
// evaluated into the page instead.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'

const AXE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeApi {
  run(ctx: Document, o: object): Promise<{ violations: Array<{ id: string; help: string; nodes: Array<{ target: string[] }> }> }>
}

/** Loads axe into the page once (before a check that must start at a precise moment). */
export async function loadAxe(page: Page): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE)
}

/** axe-core's violations on the page as it is. */
export async function axeViolations(page: Page): Promise<string[]> {
  await loadAxe(page)
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: AxeApi }).axe
    const r = await axe.run(document, { resultTypes: ['violations'] })
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`)
  })
}

export interface AxeWhileShown {
  violations: string[]
  /** the element was on the page from the start of axe's run to its end (the check saw that state) */
  stayed: boolean
  /** its aria-valuetext (or text) when the run began, and when it ended */
  first: string
  last: string
  ms: number
}

/**
 * Arms axe to run on the page the moment an element matching SELECTOR appears (a state that lasts
 * seconds, such as a dialog's progress): found by a MutationObserver in the page, with no round
 * trip to the test in between. Call loadAxe first, then start what shows the element; the answer
 * says whether the element stayed through the whole run.
 */
export function axeWhenShown(page: Page, selector: string): Promise<AxeWhileShown> {
  return page.evaluate(
    (sel) =>
      new Promise<AxeWhileShown>((resolve, reject) => {
        const axe = (window as unknown as { axe: AxeApi }).axe
        const textOf = (el: Element) => el.getAttribute('aria-valuetext') ?? el.textContent ?? ''
        const run = (el: Element) => {
          let left = false
          const watch = new MutationObserver(() => {
            if (!el.isConnected) left = true
          })
          watch.observe(document.body, { childList: true, subtree: true })
          const first = textOf(el)
          const t0 = performance.now()
          axe.run(document, { resultTypes: ['violations'] }).then((r) => {
            watch.disconnect()
            resolve({
              violations: r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`),
              stayed: !left && el.isConnected,
              first,
              last: textOf(el),
              ms: Math.round(performance.now() - t0),
            })
          }, reject)
        }
        const now = document.querySelector(sel)
        if (now) return run(now)
        const appear = new MutationObserver(() => {
          const found = document.querySelector(sel)
          if (!found) return
          appear.disconnect()
          run(found)
        })
        appear.observe(document.body, { childList: true, subtree: true })
      }),
    selector,
  )
}
