// A small web server for sessions (perl-base: a page and a WebSocket echo) and a GET through the
// preview proxy, shared by the preview and move tests.
import http from 'node:http'
import { until, type BerthHome } from './berth'

/**
 * A page and a WebSocket echo on the session's loopback only (perl-base has Digest::SHA); with a
 * third argument, each request's first line is appended to that file (what reached the session).
 */
export const PERL_WEB = `
use IO::Socket::INET; use Digest::SHA qw(sha1_base64); $SIG{CHLD} = "IGNORE";
my ($port, $text, $log) = @ARGV;
my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $port, Listen => 16, ReuseAddr => 1) or die "listen: $!";
while (my $c = $s->accept) {
  if (fork) { close $c; next }
  close $s;
  my %h; my $first = <$c>; while (<$c>) { last if /^\\r?\\n$/; $h{lc $1} = $2 if /^([^:]+):\\s*(.*?)\\r?\\n$/ }
  if ($log && open(my $l, ">>", $log)) { print $l $first; close $l }
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
export function previewGet(
  previewPort: number,
  host: string,
  path = '/',
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: previewPort, path, headers: { ...headers, host } }, (res) => {
      let body = ''
      res.on('data', (d: Buffer) => (body += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }))
    })
    req.on('error', reject)
    // a request the session never answers is an error for the caller's retry, not a hang
    req.setTimeout(10_000, () => req.destroy(new Error('no answer within 10 s')))
    req.end()
  })
}

/** The Host of a session's preview of PORT, as `berth session show` lists it once the port listens (route, port and key). */
export async function previewHost(berth: BerthHome, id: string, port: number): Promise<string> {
  const shown = await until(async () => {
    const s = await berth.json(['session', 'show', id])
    return (s.previews as { port: number; url: string }[] | undefined)?.find((p) => p.port === port)
  }, `port ${port} in the previews of ${id}`)
  return new URL(shown.url).host
}
