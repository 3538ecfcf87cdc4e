// ssh agent forwarding into a session (off unless the allowAgentForwarding setting is on). A small
// relay inside the container listens on a private unix socket (SSH_AUTH_SOCK) and carries each
// agent connection over its stdio, framed; for each one the gateway opens an
// auth-agent@openssh.com channel back to the ssh client, whose agent answers.
import { randomBytes } from 'node:crypto'
import type { Connection } from 'ssh2'
import { BerthError } from '../../../shared/errors'
import { shq } from '../engines/engine'
import { openExec } from '../engines/exec-gate'
import { DockerStreamReader } from './docker-stream'
import type { Reached } from './route-table'

// frames both ways: type (o: open, d: data, c: close), u32 connection id, u32 length, payload
const RELAY = `
use strict; use IO::Socket::UNIX; use IO::Select; use Socket;
my $dir = $ARGV[0]; umask 077;
mkdir($dir, 0700) or do { syswrite STDERR, "-cannot create $dir: $!\\n"; exit 1 };
my $path = "$dir/agent.sock";
my $l = IO::Socket::UNIX->new(Type => SOCK_STREAM, Local => $path, Listen => 16) or do { syswrite STDERR, "-cannot listen on $path: $!\\n"; rmdir $dir; exit 1 };
END { unlink $path; rmdir $dir; }
$SIG{PIPE} = "IGNORE"; $SIG{TERM} = sub { exit 0 }; binmode STDIN; binmode STDOUT;
syswrite STDERR, "+$path\\n";
my $sel = IO::Select->new($l, \\*STDIN); my (%c, %id); my $next = 1; my $in = ""; my $lf = fileno($l);
sub out { my ($t, $i, $d) = @_; $d = "" unless defined $d; my $f = pack("aNN", $t, $i, length $d) . $d; my $o = 0;
  while ($o < length $f) { my $w = syswrite(STDOUT, $f, length($f) - $o, $o); exit 0 unless defined $w; $o += $w } }
sub drop { my $i = shift; my $s = delete $c{$i} or return; $sel->remove($s); delete $id{fileno $s}; close $s }
while (1) { for my $fh ($sel->can_read) {
  my $f = fileno($fh);
  if ($f == $lf) { my $s = $l->accept or next; my $i = $next++; $c{$i} = $s; $id{fileno $s} = $i; $sel->add($s); out("o", $i); next }
  if ($f == 0) { my $n = sysread(STDIN, my $buf, 65536); exit 0 unless $n; $in .= $buf;
    while (length($in) >= 9) { my ($t, $i, $len) = unpack("aNN", $in); last if length($in) < 9 + $len;
      my $d = substr($in, 9, $len); $in = substr($in, 9 + $len);
      if ($t eq "d") { my $s = $c{$i} or next; my $o = 0; while ($o < $len) { my $w = syswrite($s, $d, $len - $o, $o); last unless defined $w; $o += $w } }
      elsif ($t eq "c") { drop($i) } }
    next }
  my $i = $id{$f}; my $n = sysread($fh, my $buf, 65536);
  if (!$n) { out("c", $i); drop($i) } else { out("d", $i, $buf) }
} }`

const MAX_FRAME = 1024 * 1024

/** One agent connection inside the container and the client channel that serves it. */
interface AgentConn {
  channel: import('ssh2').ServerChannel | undefined
  queue: Buffer[]
  ended: boolean
}

export interface ForwardedAgent {
  socketPath: string
  stop(): void
}

export class AgentForwarding {
  async start(client: Connection, reached: Reached): Promise<ForwardedAgent> {
    const dir = `/tmp/berth-agent-${randomBytes(6).toString('hex')}`
    const { stream } = await openExec(
      reached.engine.docker,
      reached.containerId,
      {
        Cmd: [
          '/bin/sh',
          '-c',
          `command -v perl >/dev/null 2>&1 || { echo "-it needs perl in the session" >&2; exit 1; }; exec perl -e ${shq(RELAY)} "$1"`,
          'sh',
          dir,
        ],
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
      },
      { hijack: true, stdin: true },
    )
    stream.on('error', () => undefined)
    const conns = new Map<number, AgentConn>()
    const send = (type: 'd' | 'c', id: number, data: Buffer = Buffer.alloc(0)) => {
      if (stream.destroyed) return
      const head = Buffer.alloc(9)
      head.write(type, 0, 'latin1')
      head.writeUInt32BE(id, 1)
      head.writeUInt32BE(data.length, 5)
      stream.write(data.length ? Buffer.concat([head, data]) : head)
    }
    let status = ''
    let settle: ((line: string) => void) | undefined
    const ready = new Promise<string>((r) => (settle = r))
    let inbox: Buffer = Buffer.alloc(0)
    const onFrames = (chunk: Buffer) => {
      inbox = inbox.length ? Buffer.concat([inbox, chunk]) : chunk
      while (inbox.length >= 9) {
        const type = String.fromCharCode(inbox[0]!)
        const id = inbox.readUInt32BE(1)
        const len = inbox.readUInt32BE(5)
        if (len > MAX_FRAME) {
          stream.destroy()
          return
        }
        if (inbox.length < 9 + len) break
        const data = inbox.subarray(9, 9 + len)
        inbox = inbox.subarray(9 + len)
        if (type === 'o') {
          // the request usually follows in the same chunk: hold it until the client's channel is open
          const conn: AgentConn = { channel: undefined, queue: [], ended: false }
          conns.set(id, conn)
          openAgentChannel(client).then(
            (ch) => {
              ch.on('error', () => undefined)
              if (conns.get(id) !== conn) return void ch.close()
              conn.channel = ch
              ch.on('data', (d: Buffer) => send('d', id, d))
              ch.once('close', () => {
                if (conns.get(id) === conn) {
                  conns.delete(id)
                  send('c', id)
                }
              })
              for (const d of conn.queue.splice(0)) ch.write(d)
              if (conn.ended) ch.end()
            },
            () => {
              conns.delete(id)
              send('c', id)
            },
          )
        } else if (type === 'd') {
          const conn = conns.get(id)
          if (conn?.channel) conn.channel.write(Buffer.from(data))
          else if (conn && conn.queue.length < 64) conn.queue.push(Buffer.from(data))
        } else if (type === 'c') {
          const conn = conns.get(id)
          conns.delete(id)
          if (conn?.channel) conn.channel.end()
          else if (conn) conn.ended = true
        }
      }
    }
    const reader = new DockerStreamReader(true, (fd, chunk) => {
      if (fd === 1) return onFrames(chunk)
      if (settle) {
        status += chunk.toString('utf8')
        const nl = status.indexOf('\n')
        if (nl >= 0) {
          const s = settle
          settle = undefined
          s(status.slice(0, nl))
        }
      }
    })
    stream.pipe(reader)
    stream.once('close', () => {
      settle?.('-the agent relay stopped')
      for (const c of conns.values()) c.channel?.close()
      conns.clear()
    })
    const timer = setTimeout(() => settle?.('-the agent relay did not start'), 10_000)
    const line = await ready
    clearTimeout(timer)
    if (!line.startsWith('+')) {
      stream.destroy()
      throw new BerthError('refused', line.replace(/^-/, ''))
    }
    return {
      socketPath: line.slice(1),
      // stdin EOF ends the relay, which removes its socket
      stop: () => stream.end(),
    }
  }
}

/** ssh2's server side has no public call to open an agent channel to the client; its protocol does. */
function openAgentChannel(client: Connection): Promise<import('ssh2').ServerChannel> {
  const c = client as unknown as {
    _chanMgr?: { add(cb: unknown): number }
    _protocol?: { openssh_authAgent(chan: number, window: number, packet: number): void }
  }
  return new Promise((resolve, reject) => {
    if (!c._chanMgr || !c._protocol) return reject(new Error('agent channels are not available'))
    const wrapper = Object.assign((err: Error | undefined, ch: import('ssh2').ServerChannel) => (err ? reject(err) : resolve(ch)), {
      type: 'auth-agent@openssh.com',
    })
    const local = c._chanMgr.add(wrapper)
    if (local === -1) return reject(new Error('no free channels'))
    c._protocol.openssh_authAgent(local, 2 * 1024 * 1024, 32 * 1024)
  })
}
