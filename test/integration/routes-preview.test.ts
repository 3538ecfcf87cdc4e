// Preview addresses: a web server inside a session is reachable at a stable
// http://<route>-<port>.localhost:<previewPort>/, in a real browser, WebSockets included.
import http from 'node:http'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BerthHome, until } from '../support/berth'
import { SshUser } from '../support/ssh-user'
import { testHost } from '../support/testhost'

/** A page and a WebSocket echo on the session's loopback only (perl-base has Digest::SHA). */
export const PERL_WEB = `
use IO::Socket::INET; use Digest::SHA qw(sha1_base64); $SIG{CHLD} = "IGNORE";
my ($port, $text) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $port, Listen => 16, ReuseAddr => 1) or die "listen: $!";
while (my $c = $s->accept) {
  if (fork) { close $c; next }
  my %h; my $first = <$c>; while (<$c>) { last if /^\\r?\\n$/; $h{lc $1} = $2 if /^([^:]+):\\s*(.*?)\\r?\\n$/ }
  if (lc($h{upgrade} // "") ne "websocket") {
    my $b = "<html><body><h1 id=t>$text</h1><p id=h>$h{host}</p></body></html>\\n";
    print $c "HTTP/1.1 200 OK\\r\\nContent-Type: text/html\\r\\nContent-Length: " . length($b) . "\\r\\nConnection: close\\r\\n\\r\\n$b"; exit 0 }
  my $acc = sha1_base64($h{"sec-websocket-key"} . "258EAFA5-E914-47DA-95CA-C5AB0DC85B11") . "=";
  print $c "HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: $acc\\r\\n\\r\\n";
  binmode $c;
  while (1) {
    read($c, my $hd, 2) == 2 or last; my ($b1, $b2) = unpack("CC", $hd); my $op = $b1 & 15; my $len = $b2 & 127;
    if ($len == 126) { read($c, my $x, 2); $len = unpack("n", $x) } elsif ($len == 127) { read($c, my $x, 8); $len = unpack("Q>", $x) }
    my $mask = ""; read($c, $mask, 4) if $b2 & 128; my $data = ""; read($c, $data, $len) if $len;
    if ($mask ne "") { my @m = unpack("C4", $mask); my @d = unpack("C*", $data); $d[$_] ^= $m[$_ % 4] for 0 .. $#d; $data = pack("C*", @d) }
    last if $op == 8;
    my $out = "echo: $data"; my $l = length $out;
    print $c pack("CC", 0x81, $l < 126 ? $l : 126) . ($l >= 126 ? pack("n", $l) : "") . $out;
  }
  exit 0;
}`

/** GET through the preview proxy with a Host header (this machine's DNS does not map *.localhost to loopback; browsers do). */
export function previewGet(previewPort: number, host: string, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: previewPort, path, headers: { host } }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

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
