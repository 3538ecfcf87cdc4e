#!/usr/bin/env bash
# Brings this Debian machine up as Berth's test host, idempotently, as root:
# a local Docker engine ("the laptop"), CRIU 4, the base images, and an "office server"
# (a second engine reachable only through a real OpenSSH sshd on 127.0.0.2:2222).
# Follows ../shared/testhost/RECIPE.md. Writes what it built to $BERTH_TESTHOST_ENV
# (default /var/lib/berth-testhost/testhost.env) for the tests to read.
set -euo pipefail

STATE=${BERTH_TESTHOST_DIR:-/var/lib/berth-testhost}
ENV_FILE=${BERTH_TESTHOST_ENV:-$STATE/testhost.env}
LOGS=/var/log
OFFICE_SOCK=/var/run/docker-office.sock
OFFICE_ADDR=127.0.0.2
OFFICE_PORT=2222
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

say() { printf '[testhost] %s\n' "$*" >&2; }
need_root() { [ "$(id -u)" = 0 ] || { echo "testhost.sh must run as root" >&2; exit 1; }; }
mirror() {
  local m
  m=$(grep -hoE '^URIs: *\S+' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1 | awk '{print $2}')
  [ -n "$m" ] || m=$(grep -hoE '^deb +\S+' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}')
  echo "${m:-http://deb.debian.org/debian}"
}
wait_for() { # wait_for SECONDS CMD...
  local t=$1; shift
  for _ in $(seq 1 $((t * 5))); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}

packages() {
  local want=(docker.io openssh-server openssh-client debootstrap chromium tmux git busybox-static containerd psmisc iproute2 procps python3 strace zsh fish shellcheck)
  local missing=()
  for p in "${want[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# unpack_criu SUITE DIR [PACKAGE...]: Debian SUITE's criu with its own libraries (and its own libc,
# run through its own loader), unpacked into DIR/root: this host's bookworm packages stay as they
# are. Without PACKAGEs, criu's dependencies are read from SUITE's own lists (sid's names change).
unpack_criu() {
  local suite=$1 dir=$2 p
  shift 2
  mkdir -p "$dir/lists/partial" "$dir/debs" "$dir/root"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror) $suite main" > "$dir/$suite.list"
  local O=(-o Dir::Etc::SourceList="$dir/$suite.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$dir/lists" -o Dir::State::Status=/dev/null)
  apt-get "${O[@]}" update -qq
  if [ $# -gt 0 ]; then
    (cd "$dir/debs" && apt-get "${O[@]}" download -qq "$@")
  else
    # what criu needs, and what its libraries load in turn (compression, the terminal, BPF)
    for p in $(apt-cache "${O[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances criu | grep '^[a-z]' | sort -u) libbpf1 libedit2 libtinfo6 libelf1t64 zlib1g libzstd1 libbz2-1.0 liblzma5; do
      (cd "$dir/debs" && apt-get "${O[@]}" download -qq "$p" 2>/dev/null) || true
    done
    [ -n "$(ls "$dir"/debs/criu_*.deb 2>/dev/null)" ] || { echo "no criu in $suite" >&2; exit 1; }
  fi
  for p in "$dir"/debs/*.deb; do dpkg -x "$p" "$dir/root"; done
}

criu4() {
  if [ -x /usr/local/sbin/criu ] && [ -x /usr/local/sbin/criu-plain ] && /usr/local/sbin/criu check >/dev/null 2>&1 && criu_dump_probe /usr/local/sbin/criu; then return; fi
  say "installing CRIU 4 from trixie into /opt/criu4"
  unpack_criu trixie /opt/criu4 criu libc6 libgnutls30t64 libnftables1 libcompel1 \
    libprotobuf-c1 libnl-3-200 libnet1 libbsd0 libuuid1 libmd0 libidn2-0 libunistring5 libtasn1-6 \
    libnettle8t64 libhogweed6t64 libgmp10 libp11-kit0 libffi8 libmnl0 libnftnl11 libjansson4 \
    libxtables12 libedit2 libtinfo6 libbpf1 libelf1t64 zlib1g libzstd1
  write_criu_wrapper /usr/local/sbin/criu /opt/criu4 ""
  # the same CRIU as it comes, never helped with CRIU_FAULT: Berth's own probe must find out by
  # itself whether this machine needs it (the lid-close tests point an engine at it)
  cp /usr/local/sbin/criu /usr/local/sbin/criu-plain
  /usr/local/sbin/criu check
  # On some VMs (Firecracker among them) hardware breakpoints never fire and CRIU's dump then
  # waits forever for the parasite to return; CRIU_FAULT=130 makes it step with PTRACE_SYSCALL.
  if ! criu_dump_probe /usr/local/sbin/criu; then
    say "hardware breakpoints do not fire here: CRIU will step syscalls instead (CRIU_FAULT=130)"
    write_criu_wrapper /usr/local/sbin/criu /opt/criu4 "export CRIU_FAULT=\${CRIU_FAULT:-130}"
    criu_dump_probe /usr/local/sbin/criu || { echo "criu cannot dump a process on this machine" >&2; exit 1; }
  fi
}

# CRIU 4.2 or later (Debian sid's), beside trixie's 4.1 as criu-sockets: from Linux 6.16 the kernel
# refuses a socket option that CRIU before 4.2 reads for every socket (checkpoint-restore/criu#2705,
# fixed by #2719), so 4.1 cannot dump a session that holds a TCP socket on this machine kind. The
# tests that prove a serving session keeps its memory point a private engine at this one; every
# other test keeps trixie's (the CRIU a Debian 13 server has).
criu_sockets() {
  local w=/usr/local/sbin/criu-sockets
  if [ -x $w ] && $w check >/dev/null 2>&1 && criu_dump_probe $w --tcp; then return; fi
  say "installing CRIU from sid into /opt/criu-sid (it saves TCP sockets on Linux 6.16 and later)"
  rm -rf /opt/criu-sid
  unpack_criu sid /opt/criu-sid
  write_criu_wrapper $w /opt/criu-sid "$(grep -q CRIU_FAULT /usr/local/sbin/criu && echo "export CRIU_FAULT=\${CRIU_FAULT:-130}")"
  $w check
  criu_dump_probe $w --tcp || { echo "sid's criu cannot dump a process holding a TCP socket here" >&2; exit 1; }
}

# ssh-audit 3 from trixie (pure Python, runs on bookworm's python3), unpacked into /opt/ssh-audit3
# and run as ssh-audit3: Debian 12's ssh-audit 2.5 scores by older rules (it calls the strict key
# exchange that closes Terrapin an unknown algorithm); the gateway test holds Berth to current ones.
ssh_audit3() {
  if [[ "$(/usr/local/bin/ssh-audit3 -h 2>/dev/null)" == *'ssh-audit v3'* ]]; then return; fi
  say "installing ssh-audit 3 from trixie into /opt/ssh-audit3"
  rm -rf /opt/ssh-audit3
  mkdir -p /opt/ssh-audit3/lists/partial /opt/ssh-audit3/debs
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $(mirror) trixie main" > /opt/ssh-audit3/trixie.list
  local O=(-o Dir::Etc::SourceList=/opt/ssh-audit3/trixie.list -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists=/opt/ssh-audit3/lists)
  apt-get "${O[@]}" update -qq
  (cd /opt/ssh-audit3/debs && apt-get "${O[@]}" download -qq ssh-audit)
  dpkg -x /opt/ssh-audit3/debs/ssh-audit_*.deb /opt/ssh-audit3/root
  cat > /usr/local/bin/ssh-audit3 <<'W'
#!/bin/sh
export PYTHONPATH=/opt/ssh-audit3/root/usr/lib/python3/dist-packages
exec python3 /opt/ssh-audit3/root/usr/bin/ssh-audit "$@"
W
  chmod 755 /usr/local/bin/ssh-audit3
  [[ "$(/usr/local/bin/ssh-audit3 -h 2>/dev/null)" == *'ssh-audit v3'* ]] || { echo "ssh-audit 3 does not run" >&2; exit 1; }
}

# write_criu_wrapper PATH DIR PRELUDE: PATH runs DIR's unpacked criu through its own loader
write_criu_wrapper() {
  cat > "$1" <<W
#!/bin/sh
$3
L=$2/root/usr/lib/x86_64-linux-gnu
exec \$L/ld-linux-x86-64.so.2 --library-path \$L $2/root/usr/sbin/criu "\$@"
W
  chmod 755 "$1"
}

# criu_dump_probe CRIU [--tcp]: whether CRIU dumps a process (with --tcp, one listening on a TCP port)
criu_dump_probe() {
  local d pid ok=1
  d=$(mktemp -d)
  if [ "${2:-}" = --tcp ]; then
    setsid python3 -c 'import socket,time; s=socket.socket(); s.bind(("127.0.0.1",0)); s.listen(); time.sleep(600)' </dev/null >/dev/null 2>&1 &
  else
    setsid sleep 600 </dev/null >/dev/null 2>&1 &
  fi
  pid=$!
  sleep 0.5
  timeout 10 "$1" dump -t "$pid" -D "$d" -o dump.log --tcp-established >/dev/null 2>&1 || ok=0
  pkill -9 -f "criu dump -t $pid" 2>/dev/null || true
  kill -9 "$pid" 2>/dev/null || true
  rm -rf "$d"
  [ $ok = 1 ]
}

local_engine() {
  mount --make-rshared / || true
  if docker -H unix:///var/run/docker.sock info >/dev/null 2>&1; then return; fi
  say "starting the local dockerd (--experimental)"
  nohup setsid dockerd --experimental >"$LOGS/berth-dockerd.log" 2>&1 < /dev/null &
  wait_for 60 docker -H unix:///var/run/docker.sock info || { tail -20 "$LOGS/berth-dockerd.log" >&2; exit 1; }
}

base_images() {
  local dh=unix:///var/run/docker.sock
  if ! docker -H $dh image inspect berth-base:bookworm >/dev/null 2>&1; then
    local rootfs=/var/tmp/berth-rootfs
    if [ ! -x $rootfs/bin/bash ] || [ ! -x $rootfs/usr/bin/tmux ]; then
      say "debootstrap bookworm (about a minute)"
      rm -rf $rootfs
      debootstrap --variant=minbase --include=tmux,git,bash,procps,ca-certificates,openssh-client,openssh-sftp-server,perl-base,coreutils \
        bookworm $rootfs "$(mirror)" >"$LOGS/berth-debootstrap.log" 2>&1
      rm -rf $rootfs/var/cache/apt/archives/*.deb $rootfs/var/lib/apt/lists/*
    fi
    say "importing berth-base:bookworm"
    tar -C $rootfs -c . | docker -H $dh import -c 'CMD ["/bin/bash"]' - berth-base:bookworm >/dev/null
  fi
  if ! docker -H $dh image inspect berth-tiny:latest >/dev/null 2>&1; then
    say "importing berth-tiny:latest (static busybox)"
    local t; t=$(mktemp -d)
    mkdir -p "$t/bin" "$t/tmp" "$t/workspace" "$t/etc"
    cp /bin/busybox "$t/bin/busybox"
    for a in sh ls cat echo sleep true false head tail wc sync env mkdir rm printf date id md5sum sha256sum dd grep sed; do ln -s busybox "$t/bin/$a"; done
    echo 'root:x:0:0:root:/root:/bin/sh' > "$t/etc/passwd"
    tar -C "$t" -c . | docker -H $dh import -c 'CMD ["/bin/sh"]' - berth-tiny:latest >/dev/null
    rm -rf "$t"
  fi
}

office_engine() {
  if ! docker -H unix://$OFFICE_SOCK info >/dev/null 2>&1; then
    say "starting the office dockerd"
    mkdir -p /var/lib/docker-office
    nohup setsid dockerd --experimental --data-root /var/lib/docker-office --exec-root /var/run/docker-office \
      --pidfile /var/run/docker-office.pid -H unix://$OFFICE_SOCK --bip 172.31.250.1/24 \
      >"$LOGS/berth-dockerd-office.log" 2>&1 < /dev/null &
    wait_for 60 docker -H unix://$OFFICE_SOCK info || { tail -20 "$LOGS/berth-dockerd-office.log" >&2; exit 1; }
  fi
  getent group docker >/dev/null || groupadd docker
  chgrp docker $OFFICE_SOCK
  chmod 660 $OFFICE_SOCK
}

office_sshd() {
  id office >/dev/null 2>&1 || useradd -m -s /bin/bash office
  usermod -p '*' office
  usermod -aG docker office
  mkdir -p "$STATE"
  chmod 755 "$STATE"
  [ -f "$STATE/office_host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$STATE/office_host_ed25519" -C office-host
  [ -f "$STATE/office_user_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$STATE/office_user_ed25519" -C berth-test
  install -d -m 700 -o office -g office ~office/.ssh
  install -m 600 -o office -g office "$STATE/office_user_ed25519.pub" ~office/.ssh/authorized_keys
  cat > "$STATE/sshd_config" <<C
Port $OFFICE_PORT
ListenAddress $OFFICE_ADDR
HostKey $STATE/office_host_ed25519
PidFile $STATE/sshd.pid
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
AllowUsers office
AllowStreamLocalForwarding yes
MaxSessions 64
MaxStartups 64:30:200
SetEnv DOCKER_HOST=unix://$OFFICE_SOCK
Subsystem sftp internal-sftp
C
  mkdir -p /run/sshd
  if [ -f "$STATE/sshd.pid" ] && kill -0 "$(cat "$STATE/sshd.pid")" 2>/dev/null; then
    kill -HUP "$(cat "$STATE/sshd.pid")"
  else
    say "starting the office sshd on $OFFICE_ADDR:$OFFICE_PORT"
    /usr/sbin/sshd -f "$STATE/sshd_config" -E "$LOGS/berth-sshd-office.log"
  fi
  wait_for 20 ssh -i "$STATE/office_user_ed25519" -p $OFFICE_PORT -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR office@$OFFICE_ADDR docker version \
    || { echo "office sshd does not answer" >&2; exit 1; }
}

write_env() {
  local fp
  fp=$(ssh-keygen -lf "$STATE/office_host_ed25519.pub" | awk '{print $2}')
  cat > "$ENV_FILE" <<E
BERTH_TEST_LOCAL_SOCKET=/var/run/docker.sock
BERTH_TEST_OFFICE_URL=ssh://office@$OFFICE_ADDR:$OFFICE_PORT
BERTH_TEST_OFFICE_SOCKET=$OFFICE_SOCK
BERTH_TEST_OFFICE_IDENTITY=$STATE/office_user_ed25519
BERTH_TEST_OFFICE_HOSTKEY_FP=$fp
BERTH_TEST_OFFICE_SSHD_PID=$STATE/sshd.pid
BERTH_TEST_OFFICE_DATA_ROOT=/var/lib/docker-office
BERTH_TEST_BASE_IMAGE=berth-base:bookworm
BERTH_TEST_TINY_IMAGE=berth-tiny:latest
BERTH_TEST_CRIU=/usr/local/sbin/criu
BERTH_TEST_CRIU_PLAIN=/usr/local/sbin/criu-plain
BERTH_TEST_CRIU_SOCKETS=/usr/local/sbin/criu-sockets
BERTH_TEST_CRIU_NEEDS_FAULT=$(grep -q CRIU_FAULT /usr/local/sbin/criu && echo 1 || echo 0)
E
  chmod 644 "$ENV_FILE"
  cat "$ENV_FILE"
}

need_root
packages
criu4
criu_sockets
ssh_audit3
local_engine
base_images
office_engine
office_sshd
write_env
say "ready"
