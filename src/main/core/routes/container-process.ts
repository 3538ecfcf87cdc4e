// A process in a session's container, started through the Docker API (the same call on the local
// socket and over a server's one persistent ssh connection), with its raw attach stream.
import type Dockerode from 'dockerode'
import type { Duplex } from 'node:stream'
import { shq } from '../engines/engine'
import { openExec } from '../engines/exec-gate'

export interface ProcessSpec {
  /** what sshd would run: a login shell, a command through the user's shell, or a subsystem */
  kind: 'shell' | 'exec' | 'sftp' | 'relay'
  command?: string
  tty: boolean
  env: Record<string, string>
  /** the session's user for this process (absent: the image's) */
  user?: string | undefined
}

export interface ContainerProcess {
  /** the hijacked stream: stdin in, output out (multiplexed unless tty) */
  stream: Duplex
  multiplexed: boolean
  resize(cols: number, rows: number): void
  /** the exit code once the process ended (polls briefly if the stream closed first) */
  exitCode(): Promise<number | null>
}

// The first line a wrapped process writes (stdout with a tty, stderr without) is its pid inside
// the container, so a dropped connection can hang up its shell and `signal` requests reach it.
const REPORT_PID = 'printf "%s\\n" "$$" >&2;'
const REPORT_PID_TTY = 'printf "%s\\n" "$$";'
// sshd runs the user's shell: prefer $SHELL, then bash, then sh.
const PICK_SHELL = 'for s in "$SHELL" /bin/bash /usr/bin/bash; do if [ -n "$s" ] && [ -x "$s" ]; then break; fi; s=/bin/sh; done;'
const SFTP_SERVERS = ['/usr/lib/openssh/sftp-server', '/usr/libexec/openssh/sftp-server', '/usr/lib/ssh/sftp-server', '/usr/libexec/sftp-server', '/usr/lib/sftp-server']

/** A small relay to a port on the container's own loopback (IPv4 or IPv6), for listeners bound to localhost. */
const PERL_RELAY = `
use strict; use IO::Socket::IP; use IO::Select; use Socket qw(SOCK_STREAM);
my $port = $ARGV[0]; my $s;
for my $h ("127.0.0.1", "::1") { $s = IO::Socket::IP->new(PeerHost => $h, PeerPort => $port, Type => SOCK_STREAM); last if $s; }
unless ($s) { syswrite STDERR, "-nothing listens on port $port in this session\\n"; exit 1; }
syswrite STDERR, "+\\n"; binmode STDIN; binmode STDOUT; $SIG{PIPE} = "IGNORE";
my $sel = IO::Select->new(\\*STDIN, $s); my $sf = fileno($s);
LOOP: while (1) { for my $fh ($sel->can_read) {
  my $n = sysread($fh, my $buf, 65536);
  if (fileno($fh) == $sf) { last LOOP unless $n; my $o = 0; while ($o < $n) { my $w = syswrite(STDOUT, $buf, $n - $o, $o); last LOOP unless defined $w; $o += $w } }
  else { if (!$n) { $sel->remove(\\*STDIN); shutdown($s, 1); next } my $o = 0; while ($o < $n) { my $w = syswrite($s, $buf, $n - $o, $o); last LOOP unless defined $w; $o += $w } }
} }`

export function commandFor(spec: ProcessSpec): string[] {
  const report = spec.tty ? REPORT_PID_TTY : REPORT_PID
  switch (spec.kind) {
    case 'shell':
      return ['/bin/sh', '-c', `${report} ${PICK_SHELL} exec "$s" -l`]
    case 'exec':
      return ['/bin/sh', '-c', `${report} ${PICK_SHELL} exec "$s" -c "$1"`, 'sh', spec.command ?? '']
    case 'sftp':
      return [
        '/bin/sh',
        '-c',
        `${report} for p in ${SFTP_SERVERS.join(' ')}; do if [ -x "$p" ]; then exec "$p"; fi; done; ` +
          `echo "berth: this session has no sftp-server (install openssh-sftp-server in its image)" >&2; exit 127`,
      ]
    case 'relay':
      return [
        '/bin/sh',
        '-c',
        `if command -v perl >/dev/null 2>&1; then exec perl -e ${shq(PERL_RELAY)} "$1"; fi; ` +
          `if command -v nc >/dev/null 2>&1; then printf '+\\n' >&2; exec nc 127.0.0.1 "$1"; fi; ` +
          `echo "-this session has neither perl nor nc to reach a port on its loopback" >&2; exit 1`,
        'sh',
        spec.command ?? '',
      ]
  }
}

export async function startContainerProcess(docker: Dockerode, containerId: string, spec: ProcessSpec): Promise<ContainerProcess> {
  const { exec, stream } = await openExec(
    docker,
    containerId,
    { Cmd: commandFor(spec), AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: spec.tty, Env: Object.entries(spec.env).map(([k, v]) => `${k}=${v}`), User: spec.user },
    { hijack: true, stdin: true, Tty: spec.tty },
  )
  return {
    stream,
    multiplexed: !spec.tty,
    resize: (cols, rows) => {
      if (spec.tty && cols > 0 && rows > 0) void exec.resize({ w: cols, h: rows }).catch(() => undefined)
    },
    exitCode: async () => {
      for (let i = 0; i < 50; i++) {
        try {
          const info = await exec.inspect()
          if (!info.Running) return typeof info.ExitCode === 'number' ? info.ExitCode : null
        } catch {
          return null
        }
        await new Promise((r) => setTimeout(r, 100))
      }
      return null
    },
  }
}

/** Sends a signal to a process of the container by its pid there (a hang-up, or a client's `signal`). */
export async function signalInContainer(docker: Dockerode, containerId: string, pid: number, signal: string): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 1 || !/^[A-Z0-9]+$/.test(signal)) return
  const { stream: s } = await openExec(
    docker,
    containerId,
    { Cmd: ['/bin/sh', '-c', 'kill -s "$0" "$1"', signal, String(pid)], AttachStdout: true, AttachStderr: true },
    { hijack: true, stdin: false },
  )
  s.resume()
  await new Promise<void>((r) => {
    s.once('end', () => r())
    s.once('close', () => r())
    s.once('error', () => r())
  })
}
