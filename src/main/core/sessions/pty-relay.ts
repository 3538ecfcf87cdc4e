// A terminal's pty made inside the container by a small perl program, rather than by Docker. With a
// Docker tty every write of the program (tmux redraws in pieces of ~100 bytes) crosses
// containerd-shim, dockerd and the core one by one; on a small machine that chain used more CPU
// than tmux itself and left the page too little to draw. The relay reads the pty in pieces of up
// to 64 KiB, waiting a moment (2 ms, 8 ms at most) for more while output flows, and writes them to
// a plain exec stream. Input and resizes reach it as frames on stdin; its stdin closing is the
// terminal hanging up (the pty closes: the shell or the tmux client gets SIGHUP). Images without
// perl get Docker's tty.
import type Dockerode from 'dockerode'
import { startExec, type ExecHandle } from './exec'

/** Frames on the relay's stdin: a type byte, a 32-bit big-endian length, the payload. */
const FRAME_INPUT = 0x64 // 'd': bytes typed
const FRAME_RESIZE = 0x72 // 'r': columns and rows, 16 bits each

export const PTY_RELAY = String.raw`
use strict; use warnings; use POSIX (); use Fcntl; use Time::HiRes ();
my ($cols, $rows, @cmd) = @ARGV;
my ($TIOCGPTN, $TIOCSPTLCK, $TIOCSCTTY, $TIOCSWINSZ) = (0x80045430, 0x40045431, 0x540E, 0x5414);
open(my $m, '+<', '/dev/ptmx') or die "berth: cannot open a pty: $!\n";
my $unlock = pack('i', 0); ioctl($m, $TIOCSPTLCK, $unlock) or die "berth: cannot unlock the pty: $!\n";
my $n = pack('i', 0); ioctl($m, $TIOCGPTN, $n) or die "berth: no pty number: $!\n";
my $slave = '/dev/pts/' . unpack('i', $n);
sub winsize { my $ws = pack('S4', $_[1], $_[0], 0, 0); ioctl($m, $TIOCSWINSZ, $ws) }
winsize($cols, $rows);
my $pid = fork() // die "berth: cannot fork: $!\n";
if (!$pid) {
  POSIX::setsid(); close($m);
  open(my $s, '+<', $slave) or POSIX::_exit(126);
  my $z = 0; ioctl($s, $TIOCSCTTY, $z);
  open(STDIN, '<&', $s); open(STDOUT, '>&', $s); open(STDERR, '>&', $s); close($s);
  exec { $cmd[0] } @cmd or POSIX::_exit(127);
}
$SIG{HUP} = $SIG{TERM} = sub { kill('HUP', -$pid); POSIX::_exit(0) };
$SIG{PIPE} = 'IGNORE';
binmode(STDOUT); binmode(STDIN);
for my $fh ($m, \*STDOUT) { fcntl($fh, F_SETFL, fcntl($fh, F_GETFL, 0) | O_NONBLOCK) }
# out: read from the pty, not yet sent; sending: being written to stdout; typed: input for the pty
my ($out, $sending, $in, $typed, $since, $idle, $open_m) = ('', '', '', '', 0, 0, 1);
my $MAX = 65536;
while (1) {
  if (!length($sending) && length($out) && ($idle || !$open_m || length($out) >= $MAX || Time::HiRes::time() - $since >= 0.008)) {
    ($sending, $out, $since) = ($out, '', 0);
  }
  last if !$open_m && !length($sending);
  my ($rin, $win) = ('', '');
  vec($rin, fileno($m), 1) = 1 if $open_m && length($out) < $MAX;
  vec($rin, 0, 1) = 1;
  vec($win, fileno($m), 1) = 1 if $open_m && length($typed);
  vec($win, 1, 1) = 1 if length($sending);
  my $k = select(my $rout = $rin, my $wout = $win, undef, (length($out) && !length($sending)) ? 0.002 : undef);
  if ($k < 0) { next if $!{EINTR}; last }
  $idle = $k == 0;
  next if $idle;
  if (vec($rout, fileno($m), 1)) {
    my $r = sysread($m, $out, $MAX, length $out);
    if ($r) { $since ||= Time::HiRes::time() } elsif (!(!defined($r) && $!{EAGAIN})) { $open_m = 0 }
  }
  if (vec($rout, 0, 1)) {
    my $r = sysread(STDIN, $in, 65536, length $in);
    # the terminal hung up: so does the pty
    if (!$r) { kill('HUP', -$pid); POSIX::_exit(0) }
    while (length($in) >= 5) {
      my ($t, $len) = unpack('CN', $in);
      last if length($in) < 5 + $len;
      my $p = substr($in, 5, $len); substr($in, 0, 5 + $len, '');
      if ($t == ${FRAME_INPUT}) { $typed .= $p } elsif ($t == ${FRAME_RESIZE} && $len == 4) { winsize(unpack('nn', $p)) }
    }
  }
  if (length($typed) && vec($wout, fileno($m), 1)) { my $w = syswrite($m, $typed); substr($typed, 0, $w, '') if $w }
  if (length($sending) && vec($wout, 1, 1)) {
    my $w = syswrite(STDOUT, $sending);
    if ($w) { substr($sending, 0, $w, '') } elsif (!defined($w) && !$!{EAGAIN}) { kill('HUP', -$pid); POSIX::_exit(0) }
  }
}
waitpid($pid, 0);
exit(($? & 127) ? 128 + ($? & 127) : $? >> 8);
`

export interface RelayedTerminal {
  cmd: string[]
  env?: Record<string, string> | undefined
  cols: number
  rows: number
  user?: string | undefined
}

/** Starts CMD on a pty the relay makes in the container; the handle speaks the relay's frames. */
export async function startRelayedTerminal(
  docker: Dockerode,
  containerId: string,
  t: RelayedTerminal,
  onData: (fd: 1 | 2, chunk: Buffer) => void,
): Promise<ExecHandle> {
  const h = await startExec(
    docker,
    containerId,
    { cmd: ['perl', '-e', PTY_RELAY, String(t.cols), String(t.rows), ...t.cmd], stdin: true, env: t.env, user: t.user },
    onData,
  )
  return {
    ...h,
    write: (d) => h.write(frame(FRAME_INPUT, d)),
    resize: (cols, rows) => {
      const p = Buffer.alloc(4)
      p.writeUInt16BE(clamp(cols), 0)
      p.writeUInt16BE(clamp(rows), 2)
      h.write(frame(FRAME_RESIZE, p))
    },
  }
}

function frame(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5)
  head.writeUInt8(type, 0)
  head.writeUInt32BE(payload.length, 1)
  return Buffer.concat([head, payload])
}

const clamp = (n: number) => Math.max(1, Math.min(0xffff, Math.floor(n)))
