// Preview addresses: a web server inside a session is reachable at a stable
// http://<route>-<port>-<key>.localhost:<previewPort>/, in a real browser, WebSockets included, by
// its owner only. A page of another site (any page the user visits) can neither use it, nor tell
// it from an address that names nothing, nor wake a session that paused itself.
import http from 'node:http'
import { writeFileSync } from 'node:fs'
import net, { type AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, sleep, until } from '../support/berth'
import { openBrowser, serveUi, type Browser, type Served } from '../support/browser'
import { PERL_WEB, previewGet, previewHost } from '../support/preview-web'
import { ensureRendererBuilt } from '../support/renderer-build'
import { SshUser } from '../support/ssh-user'
import { testHost } from '../support/testhost'

const KEY = /^[a-z2-7]{26}$/
const otherKey = () => Array.from({ length: 26 }, () => 'abcdefghijklmnopqrstuvwxyz234567'[Math.floor(Math.random() * 32)]).join('')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/**
 * What a page of another site tries against an address (page-side JavaScript: the tests are typed
 * without the DOM); each attempt's path names it, so the session's log shows what got through.
 */
const ATTACK = `async ({ http, ws, tag }) => {
  const settle = (p) => p.then((v) => v, (e) => 'error:' + e.name)
  const loaded = (el) => new Promise((res) => { el.onload = () => res('load'); el.onerror = () => res('error') })
  const out = {}
  out.cors = await settle(fetch(http + 'attack-cors-' + tag).then((r) => 'status:' + r.status))
  out.noCors = await settle(fetch(http + 'attack-nocors-' + tag, { mode: 'no-cors' }).then((r) => 'type:' + r.type))
  out.post = await settle(fetch(http + 'attack-post-' + tag, { method: 'POST', mode: 'no-cors', body: 'x=1' }).then((r) => 'type:' + r.type))
  const img = new Image()
  const imgDone = loaded(img)
  img.src = http + 'attack-img-' + tag
  out.img = await imgDone
  const script = document.createElement('script')
  const scriptDone = loaded(script)
  script.src = http + 'attack-script-' + tag
  document.body.append(script)
  out.script = await scriptDone
  out.ws = await new Promise((res) => {
    const w = new WebSocket(ws + 'attack-ws-' + tag)
    w.onopen = () => { res('open'); w.close() }
    w.onerror = () => res('error')
  })
  // a form posted into a frame of the page, and a frame of the preview itself
  const sink = document.createElement('iframe')
  sink.name = 'sink-' + tag
  document.body.append(sink)
  const posted = new Promise((res) => { sink.onload = () => res('loaded') })
  const form = document.createElement('form')
  form.method = 'POST'
  form.action = http + 'attack-form-' + tag
  form.target = sink.name
  form.innerHTML = '<input name="x" value="1">'
  document.body.append(form)
  form.submit()
  out.form = await posted
  const frame = document.createElement('iframe')
  document.body.append(frame)
  const framed = new Promise((res) => { frame.onload = () => res('loaded') })
  frame.src = http + 'attack-frame-' + tag
  out.frame = await framed
  return out
}`

function attack(page: Page, t: { http: string; ws: string; tag: string }): Promise<Record<string, string>> {
  return page.evaluate(`(${ATTACK})(${JSON.stringify(t)})`)
}

/** A WebSocket handshake as a page of ORIGIN sends it, raw: the whole answer, once the proxy closes. */
function upgradeFromPage(previewPort: number, host: string, origin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(previewPort, '127.0.0.1')
    let got = ''
    sock.on('data', (d: Buffer) => (got += d.toString()))
    sock.on('error', reject)
    sock.on('close', () => resolve(got.replace(/^date: .*\r\n/im, '')))
    sock.setTimeout(10_000, () => sock.destroy(new Error('no answer')))
    sock.write(
      `GET /socket HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nOrigin: ${origin}\r\n` +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-Fetch-Site: cross-site\r\nSec-Fetch-Mode: websocket\r\nSec-Fetch-Dest: empty\r\n\r\n',
    )
  })
}

describe('preview addresses', () => {
  const berth = new BerthHome('preview')
  const user = new SshUser('preview')
  let port = 0
  let previewPort = 0
  let browser: Browser
  let s: { id: string; route: string; name: string }
  /** the session's preview of port 3000: route, port and key, as `berth session show` lists it */
  let host = ''
  let attacker: http.Server
  let attackerPort = 0
  const requestsInside = async () => (await berth.run(['exec', s.name, '--', 'sh', '-c', 'cat /tmp/requests.log 2>/dev/null || true'])).stdout

  async function startWeb(): Promise<void> {
    await user.ssh(port, s.route, 'nohup perl /tmp/web.pl 3000 "served inside" /tmp/requests.log >/dev/null 2>&1 &')
    await until(async () => (await previewGet(previewPort, host)).status === 200, 'the page server')
  }

  beforeAll(async () => {
    ;({ port, previewPort } = await user.startDaemon(berth))
    s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'web'])
    writeFileSync(join(user.home, 'web.pl'), PERL_WEB)
    expect((await user.run('scp', [...user.options(), '-P', String(port), join(user.home, 'web.pl'), `${s.route}@127.0.0.1:/tmp/web.pl`])).code).toBe(0)
    await user.ssh(port, s.route, 'nohup perl /tmp/web.pl 3000 "served inside" /tmp/requests.log >/dev/null 2>&1 &')
    host = await previewHost(berth, s.id, 3000)
    // another site: any page the user visits
    attacker = http.createServer((_req, res) => res.end('<!doctype html><title>another site</title><body>hello</body>'))
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r))
    attackerPort = (attacker.address() as AddressInfo).port
    browser = await openBrowser()
  })

  afterAll(async () => {
    await browser?.close()
    attacker?.close()
    await berth.cleanup()
    user.cleanup()
  })

  it('lists the full address of each port the session listens on, its key included', async () => {
    const url = `http://${host}/`
    expect(url).toMatch(new RegExp(`^http://${s.route}-3000-[a-z2-7]{26}\\.localhost:${previewPort}/$`))
    expect(KEY.test(host.split('.')[0]!.slice(`${s.route}-3000-`.length))).toBe(true)
    expect(host.split('.')[0]!.length).toBeLessThanOrEqual(63)
    const shown = await berth.json(['session', 'show', s.id])
    expect(shown.previews).toContainEqual({ port: 3000, url })
    const text = await berth.run(['session', 'show', s.id])
    expect(text.stdout).toContain(`previews:  ${url}  (port 3000)`)
  })

  it("answers the user's navigation with the page served inside, WebSocket included", async () => {
    const page = await browser.context.newPage()
    try {
      const res = await page.goto(`http://${host}/`)
      expect(res?.status()).toBe(200)
      expect(await page.textContent('#t')).toBe('served inside')
      // the dev server sees the address the browser used (Vite and others check Host)
      expect(await page.textContent('#h')).toBe(host)
      const echoed = await page.evaluate(
        (wsUrl) =>
          new Promise<string>((resolve, reject) => {
            const ws = new WebSocket(wsUrl)
            ws.onopen = () => ws.send('ping over the preview')
            ws.onmessage = (e) => {
              resolve(String(e.data))
              ws.close()
            }
            ws.onerror = () => reject(new Error('websocket failed'))
          }),
        `ws://${host}/socket`,
      )
      expect(echoed).toBe('echo: ping over the preview')
    } finally {
      await page.close()
    }
  })

  it("opens from the link in Berth's UI (a page of another origin, clicked by the user)", async () => {
    ensureRendererBuilt()
    const served: Served = await serveUi(berth)
    const page = await browser.context.newPage()
    try {
      await page.goto(`${served.url}#/sessions/${s.id}`)
      const link = page.getByRole('link', { name: `http://${host}/` })
      await link.waitFor({ timeout: 30_000 })
      const [popup] = await Promise.all([browser.context.waitForEvent('page'), link.click()])
      await popup.waitForLoadState()
      expect(await popup.textContent('#t')).toBe('served inside')
      await popup.close()
    } finally {
      await page.close()
      await served.stop()
    }
  })

  it('gives everything else one answer: an unknown route, a wrong key, an address without its key, another host', async () => {
    const route3000 = `${s.route}-3000`
    const refusal = await previewGet(previewPort, `nosuch-route-11-3000-${otherKey()}.localhost:${previewPort}`)
    expect(refusal.status).toBe(404)
    expect(refusal.body).toContain('No Berth preview answers this request')
    const comparable = (r: typeof refusal) => ({ status: r.status, body: r.body, headers: { ...r.headers, date: undefined } })
    for (const other of [`${route3000}-${otherKey()}.localhost:${previewPort}`, `${route3000}.localhost:${previewPort}`, `${s.route}-3999-${otherKey()}.localhost:${previewPort}`, 'evil.example:80', `${host.split(':')[0]}:1`]) {
      expect(comparable(await previewGet(previewPort, other)), other).toEqual(comparable(refusal))
    }
    // the right key from another site's page (fetch metadata and Origin say so) is refused the same way
    const fromPage = await previewGet(previewPort, host, '/', { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'empty', origin: `http://127.0.0.1:${attackerPort}` })
    expect(comparable(fromPage)).toEqual(comparable(refusal))
    // the owner is told what is wrong
    const closed = await previewGet(previewPort, host.replace('-3000-', '-3999-'))
    expect(closed.status).toBe(502)
    expect(closed.body).toContain('nothing listens on port 3999')
  })

  it('cannot be used by a page of another site: no fetch, post, form, frame, image, script or WebSocket reaches the session', async () => {
    const page = await browser.context.newPage()
    try {
      const unknown = `nosuch-route-11-3000-${otherKey()}.localhost:${previewPort}`
      for (const origin of [`http://127.0.0.1:${attackerPort}/`, `http://attacker.localhost:${attackerPort}/`]) {
        await page.goto(origin)
        const live = await attack(page, { http: `http://${host}/`, ws: `ws://${host}/`, tag: 'live' })
        const none = await attack(page, { http: `http://${unknown}/`, ws: `ws://${unknown}/`, tag: 'none' })
        // the page sees the same outcome either way, and what it sees is a refusal
        expect(live, origin).toEqual(none)
        expect(live).toEqual({ cors: 'error:TypeError', noCors: 'type:opaque', post: 'type:opaque', img: 'error', script: 'error', ws: 'error', form: 'loaded', frame: 'loaded' })
      }
      const log = await requestsInside()
      expect(log).toContain('GET / HTTP/1.1')
      expect(log).not.toContain('attack')
    } finally {
      await page.close()
    }
  })

  it('cannot tell a live route from an unknown one by timing, over many tries', async () => {
    const targets = [host, `${s.route}-3000-${otherKey()}.localhost:${previewPort}`, `${s.route}-3000.localhost:${previewPort}`, `nosuch-route-11-3000-${otherKey()}.localhost:${previewPort}`]
    const page = await browser.context.newPage()
    let fetches: number[][]
    try {
      await page.goto(`http://127.0.0.1:${attackerPort}/`)
      fetches = await page.evaluate(
        async ({ targets, rounds }) => {
          const out = targets.map(() => [] as number[])
          for (let r = 0; r < rounds; r++) {
            for (let i = 0; i < targets.length; i++) {
              const t0 = performance.now()
              await fetch(`http://${targets[i]}/timing-${r}`, { mode: 'no-cors' }).catch(() => undefined)
              out[i]!.push(performance.now() - t0)
            }
          }
          return out
        },
        { targets, rounds: 40 },
      )
    } finally {
      await page.close()
    }
    // Chromium spaces out failed WebSocket handshakes to one address by itself (random backoff of
    // seconds), which hides the proxy's timing from a page; so the handshakes a page would send are
    // timed here, byte for byte as the page would see them
    const upgrades = targets.map(() => [] as number[])
    const answers = targets.map(() => new Set<string>())
    for (let r = 0; r < 40; r++) {
      for (let i = 0; i < targets.length; i++) {
        const t0 = performance.now()
        answers[i]!.add(await upgradeFromPage(previewPort, targets[i]!, `http://127.0.0.1:${attackerPort}`))
        upgrades[i]!.push(performance.now() - t0)
      }
    }
    expect(new Set(answers.map((a) => [...a].join('|'))).size).toBe(1)
    expect(answers[0]!.size).toBe(1)
    // a request that passes the browser checks (a navigation) meets the key check: a wrong key
    // costs what an unknown route costs
    const keyed = targets.slice(1).map(() => [] as number[])
    for (let r = 0; r < 40; r++) {
      for (let i = 0; i < keyed.length; i++) {
        const t0 = performance.now()
        expect((await previewGet(previewPort, targets[i + 1]!)).status).toBe(404)
        keyed[i]!.push(performance.now() - t0)
      }
    }
    const ms = { fetch: fetches.map(median), websocket: upgrades.map(median), key: keyed.map(median) }
    console.log(
      `preview timing, median ms (live, wrong key, no key, unknown): from another site's page: fetch ${ms.fetch.map((x) => x.toFixed(2)).join(', ')}; ` +
        `websocket handshake ${ms.websocket.map((x) => x.toFixed(2)).join(', ')}; past the browser checks (wrong key, no key, unknown): ${ms.key.map((x) => x.toFixed(2)).join(', ')}`,
    )
    // before, a live route answered in ~230 ms and an unknown one in 4 ms
    for (const [kind, m] of Object.entries(ms)) expect(Math.max(...m) - Math.min(...m), kind).toBeLessThan(10)
    expect(await requestsInside()).not.toContain('timing')
  })

  it('keeps the same address across a restart of Berth', async () => {
    await berth.run(['shutdown'])
    const again = await user.startDaemon(berth)
    expect(again.previewPort).toBe(previewPort)
    const r = await previewGet(previewPort, host)
    expect(r.status).toBe(200)
    expect(r.body).toContain('served inside')
    expect(await previewHost(berth, s.id, 3000)).toBe(host)
  })

  it("wakes a session that paused itself for the user's navigation only, not for another site's requests", async () => {
    await berth.json(['session', 'set', s.id, '--idle', '3'])
    await until(async () => (await berth.json(['session', 'show', s.id])).pausedBy === 'idle', 'the session to pause itself', 90_000)
    // no second idle pause right after the wake-up below
    await berth.json(['session', 'set', s.id, '--idle', 'off'])
    const page = await browser.context.newPage()
    try {
      await page.goto(`http://attacker.localhost:${attackerPort}/`)
      const tried = await attack(page, { http: `http://${host}/`, ws: `ws://${host}/`, tag: 'asleep' })
      expect(tried.noCors).toBe('type:opaque')
      expect(await previewGet(previewPort, host.replace(/-[a-z2-7]{26}\./, `-${otherKey()}.`))).toMatchObject({ status: 404 })
      await sleep(2000)
      expect((await berth.json(['session', 'show', s.id])).state).toBe('paused')

      const res = await page.goto(`http://${host}/`, { timeout: 180_000 })
      expect((await berth.json(['session', 'show', s.id])).state).toBe('running')
      if (res?.status() !== 200) await startWeb() // a pause without memory ends the page server
      await page.goto(`http://${host}/`)
      expect(await page.textContent('#t')).toBe('served inside')
      expect(await requestsInside()).not.toContain('attack-')
    } finally {
      await page.close()
    }
  })

  it('answers "session finished" to its owner once the session is finished', async () => {
    await berth.json(['finish', s.id])
    const r = await previewGet(previewPort, host)
    expect(r.status).toBe(410)
    expect(r.body).toContain('session finished')
  })
})
