// Preview addresses: a web server inside a session is reachable at a stable
// http://<route>-<port>.localhost:<previewPort>/, in a real browser, WebSockets included.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { PERL_WEB, previewGet } from '../support/preview-web'
import { SshUser } from '../support/ssh-user'
import { testHost } from '../support/testhost'

describe('preview addresses', () => {
  const berth = new BerthHome('preview')
  const user = new SshUser('preview')
  let port = 0
  let previewPort = 0
  let browser: Browser
  let s: { id: string; route: string }

  beforeAll(async () => {
    ;({ port, previewPort } = await user.startDaemon(berth))
    s = await berth.json(['session', 'create', '--image', testHost().baseImage, '--name', 'web'])
    writeFileSync(join(user.home, 'web.pl'), PERL_WEB)
    expect((await user.run('scp', [...user.options(), '-P', String(port), join(user.home, 'web.pl'), `${s.route}@127.0.0.1:/tmp/web.pl`])).code).toBe(0)
    await user.ssh(port, s.route, 'nohup perl /tmp/web.pl 3000 "served inside" >/dev/null 2>&1 &')
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] })
  })

  afterAll(async () => {
    await browser?.close()
    await berth.cleanup()
    user.cleanup()
  })

  it('lists the previews of the ports the session listens on', async () => {
    const url = `http://${s.route}-3000.localhost:${previewPort}/`
    const shown = await until(async () => {
      const j = await berth.json(['session', 'show', s.id])
      return j.previews?.some((p: { port: number }) => p.port === 3000) ? j : undefined
    }, 'port 3000 in the previews')
    expect(shown.previews).toContainEqual({ port: 3000, url })
    const text = await berth.run(['session', 'show', s.id])
    expect(text.stdout).toContain(`previews:  ${url}  (port 3000)`)
  })

  it('answers with the page served inside the session, in a real browser, WebSocket included', async () => {
    const page = await browser.newPage()
    try {
      const url = `http://${s.route}-3000.localhost:${previewPort}/`
      const res = await page.goto(url)
      expect(res?.status()).toBe(200)
      expect(await page.textContent('#t')).toBe('served inside')
      // the dev server sees the address the browser used (Vite and others check Host)
      expect(await page.textContent('#h')).toBe(`${s.route}-3000.localhost:${previewPort}`)
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
        `ws://${s.route}-3000.localhost:${previewPort}/socket`,
      )
      expect(echoed).toBe('echo: ping over the preview')
    } finally {
      await page.close()
    }
  })

  it('answers clearly when nothing listens, the route is unknown, or the Host names no route', async () => {
    const closed = await previewGet(previewPort, `${s.route}-3999.localhost:${previewPort}`)
    expect(closed.status).toBe(502)
    expect(closed.body).toContain('nothing listens on port 3999')
    const unknown = await previewGet(previewPort, `nosuch-route-11-3000.localhost:${previewPort}`)
    expect(unknown.status).toBe(404)
    expect(unknown.body).toContain('no session has the route nosuch-route-11')
    // a page that rebinds its own name to 127.0.0.1 reaches nothing
    const rebound = await previewGet(previewPort, 'evil.example:80')
    expect(rebound.status).toBe(404)
    expect(rebound.body).not.toContain('served inside')
  })

  it('keeps the same address across a restart of Berth', async () => {
    await berth.run(['shutdown'])
    const again = await user.startDaemon(berth)
    expect(again.previewPort).toBe(previewPort)
    const r = await previewGet(previewPort, `${s.route}-3000.localhost:${previewPort}`)
    expect(r.status).toBe(200)
    expect(r.body).toContain('served inside')
  })

  it('answers "session finished" once the session is finished', async () => {
    await berth.json(['finish', s.id])
    const r = await previewGet(previewPort, `${s.route}-3000.localhost:${previewPort}`)
    expect(r.status).toBe(410)
    expect(r.body).toContain('session finished')
  })
})
