// The server-side part of pause, resume and checkpoints: one POSIX sh program that Berth installs
// on a server (in the ssh user's state folder) and runs there with DOCKER_HOST set. Work that must
// finish even if the laptop's connection drops runs as a detached job (setsid + nohup) that writes
// its progress to a status file; the core follows that file and, after a drop or a crash, reads it
// again on the next contact.
//
// Root is needed only for the fast checkpoint (containerd's own client, files in Docker's data root).
// When the ssh user is not root (a docker-group user), those steps run in a small helper container
// that sees the host's root at /host and runs the host's own binaries through chroot: no more power
// than the docker group already grants, and no image to download (the helper image is empty).
import { createHash } from 'node:crypto'
import { sh } from './shell-text'

export const SERVER_SCRIPT = sh`#!/bin/sh
# berth-server: Berth's server-side steps. Usage: berth-server.sh COMMAND ARGS...
# Environment: DOCKER_HOST (the engine), BERTH_HOME_ID (names this Berth's helper and job folder).
set -u
SELF=$0
HOME_ID=\${BERTH_HOME_ID:-default}
STATE=\${XDG_STATE_HOME:-$HOME/.local/state}/berth/$HOME_ID
J=\${BERTH_JOB:-}

# Milliseconds since boot from /proc/uptime (10 ms steps), read with builtins: on a small VM every
# fork costs 20 ms or more, so the hot paths of this script avoid them.
now_ms() {
  read -r up _ < /proc/uptime
  frac=\${up#*.}; frac=\${frac#0}
  NOW=$(( \${up%.*} * 1000 + frac * 10 ))
}
now_ms; T0=$NOW
UID_NOW=$(id -u)
# Status lines: "stage NAME MS [ARG]", "note TEXT", "fallback WHY", "result JSON", "error TEXT". In a job they go to the
# job's status file (the core follows it); otherwise to stdout.
emit() { if [ -n "$J" ]; then printf '%s\n' "$*" >> "$J.status"; else printf '%s\n' "$*"; fi; }
stage() { now_ms; emit "stage $1 $(( NOW - T0 )) \${2:-}"; }
# (a freeze watcher runs while its flag file exists: a job that fails ends it too)
fail() { [ -n "\${flag:-}" ] && rm -f "$flag"; emit "error $*"; exit 1; }
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n\t' '  ')"; }

# ---------------------------------------------------------------------------------------- jobs --
# A job's files: $STATE/jobs/JOB.status (its status lines, ending with "rc N"), .pid, .boot, .log.
# detach JOB COMMAND ARGS...: runs COMMAND in its own session (setsid), stdio on files, so the end of
# the connection that started it (or of the process that followed it) does not end it.
cmd_detach() {
  job=$1; shift
  j=$STATE/jobs/$job
  # (a concurrent forget may remove an empty jobs folder at any moment: make it again if so)
  # (printf, not ":": a failed redirection of a special builtin ends a POSIX shell)
  printf '' 2>/dev/null > "$j.status" || { mkdir -p "$STATE/jobs" && printf '' > "$j.status"; } || fail "cannot write $j.status"
  if command -v setsid >/dev/null 2>&1; then
    BERTH_JOB=$j setsid sh "$SELF" run-job "$@" </dev/null >"$j.log" 2>&1 &
  else
    BERTH_JOB=$j nohup sh "$SELF" run-job "$@" </dev/null >"$j.log" 2>&1 &
  fi
  echo $! > "$j.pid"
  read -r boot < /proc/sys/kernel/random/boot_id && echo "$boot" > "$j.boot"
}
cmd_run_job() {
  trap '' HUP
  ( dispatch "$@" )
  # the last status line, appended in one write: followers never see a half-written exit code
  echo "rc $?" >> "$J.status"
}
# follow JOB [FROM]: prints the job's status lines from line FROM on, as they come, ending with
# "rc N" ("rc lost" if the job died without finishing: a reboot, a kill; "rc missing": no such job).
cmd_follow() {
  j=$STATE/jobs/$1; n=\${2:-0}
  [ -f "$j.status" ] || { echo "rc missing"; return 0; }
  read -r pid < "$j.pid" 2>/dev/null
  read -r boot < "$j.boot" 2>/dev/null
  polls=0
  while :; do
    i=0
    while IFS= read -r line; do
      i=$((i + 1))
      [ $i -gt "$n" ] || continue
      printf '%s\n' "$line"; n=$i
      case $line in "rc "*) return 0 ;; esac
    done < "$j.status"
    polls=$((polls + 1))
    # every second or so: is the job still alive? (a reboot or a kill leaves no "rc" line; after a
    # reboot its pid may belong to another process, so the boot id is compared too)
    if [ $((polls % 30)) = 0 ]; then
      read -r now_boot < /proc/sys/kernel/random/boot_id 2>/dev/null
      if [ "\${boot:-}" != "\${now_boot:-}" ] || ! kill -0 "\${pid:-0}" 2>/dev/null; then
        # it may have finished between the two reads
        while IFS= read -r line; do case $line in "rc "*) echo "$line"; return 0 ;; esac; done < "$j.status"
        echo "rc lost"; return 0
      fi
    fi
    sleep 0.03
  done
}
# start JOB COMMAND ARGS...: detach, then follow (one round trip for the core).
cmd_start() { job=$1; shift; cmd_detach "$job" "$@" && cmd_follow "$job" 0; }
# forget JOB...: removes finished jobs' files once the core has recorded their outcome.
cmd_forget() {
  for job in "$@"; do
    case $job in */*|"") continue ;; esac
    grep -q '^rc ' "$STATE/jobs/$job.status" 2>/dev/null && rm -f "$STATE/jobs/$job".*
  done
  # nothing left under way: leave no trace on the server
  rmdir "$STATE/jobs" "$STATE" 2>/dev/null
  return 0
}

# ---------------------------------------------------------------------------------- root steps --
CHROOT=
find_chroot() { for c in /usr/sbin/chroot /usr/bin/chroot /sbin/chroot /bin/chroot; do [ -x "$c" ] && { CHROOT=$c; return 0; }; done; return 1; }
helper_name() { echo "berth-helper-$HOME_ID"; }
# The helper: an empty image; the host's system folders are bound in so that its chroot runs the
# host's own binaries as root, in the host's pid namespace.
ensure_helper() {
  h=$(helper_name)
  [ "$(docker inspect -f '{{.State.Running}}' "$h" 2>/dev/null)" = true ] && return 0
  docker rm -f "$h" >/dev/null 2>&1
  find_chroot || { log "no chroot binary on this server"; return 1; }
  if ! docker image inspect berth-helper:1 >/dev/null 2>&1; then
    tar -cf - -T /dev/null | docker import -c 'LABEL berth.role=helper' - berth-helper:1 >/dev/null || return 1
  fi
  binds=
  for p in /usr /bin /sbin /lib /lib32 /lib64 /libx32; do [ -e "$p" ] && binds="$binds -v $p:$p:ro"; done
  sleeper=$(command -v sleep)
  # shellcheck disable=SC2086
  docker run -d --name "$h" --label berth.home="$HOME_ID" --label berth.role=helper --net=none --pid=host \
    --restart=no -v /:/host $binds berth-helper:1 "$sleeper" infinity >/dev/null || return 1
}
# as_root COMMAND ARGS...: runs one of this script's root-* commands as root on the host. The helper
# is started only when an exec into it fails (checking first would cost a docker CLI call each time).
as_root() {
  if [ "$UID_NOW" = 0 ]; then ( dispatch "$@" ); return $?; fi
  find_chroot || { log "no chroot binary on this server"; return 90; }
  docker exec -i -e BERTH_HOME_ID="$HOME_ID" "$(helper_name)" "$CHROOT" /host /bin/sh -s "$@" < "$SELF"
  rc=$?
  # 1 is what docker answers for a missing or stopped container (root-* commands use other codes)
  [ $rc = 1 ] || return $rc
  [ "$(docker inspect -f '{{.State.Running}}' "$(helper_name)" 2>/dev/null)" = true ] && return 1
  ensure_helper || { log "cannot start the helper container"; return 90; }
  docker exec -i -e BERTH_HOME_ID="$HOME_ID" "$(helper_name)" "$CHROOT" /host /bin/sh -s "$@" < "$SELF"
}
can_root() { [ "$UID_NOW" = 0 ] || ensure_helper; }

# ----------------------------------------------------------------------------------- engine info --
# Fields of a container, one per variable: CID STATUS PID STARTED UPPER ROOT MOUNTS(one per line)
inspect_container() {
  out=$(docker inspect -f '{{.Id}}|{{.State.Status}}|{{.State.Pid}}|{{.State.StartedAt}}|{{index .GraphDriver.Data "UpperDir"}}' "$1" 2>/dev/null) || return 1
  IFS='|' read -r CID STATUS PID STARTED UPPER <<EOF
$out
EOF
  case $UPPER in
    */overlay2/*/diff) ROOT=\${UPPER%/overlay2/*} ;;
    *) ROOT=$(docker info -f '{{.DockerRootDir}}') ;;
  esac
  return 0
}
mount_sources() { docker inspect -f '{{range .Mounts}}{{println .Source}}{{end}}' "$1" 2>/dev/null; }
# sync_paths PATH...: syncfs (sync -f) of the filesystem of each path: everything dirty on it is
# written, checkpoint files included. Non-root users may not open paths inside Docker's data root:
# their filesystem is reached through its mount point instead.
sync_paths() {
  for p in "$@"; do
    [ -n "$p" ] || continue
    sync -f "$p" 2>/dev/null && continue
    mp=$(df -P "$p" 2>/dev/null | awk 'NR == 2 {print $6}')
    if [ -n "$mp" ] && sync -f "$mp" 2>/dev/null; then continue; fi
    sync
  done
}
# The filesystems holding a container's files: its writable layer (in the data root) and its volumes.
sync_container_fs() { sync_paths "$2" $(mount_sources "$1" | tr '\n' ' '); }

# ----------------------------------------------------------------------------------- checkpoints --
# Layout (Docker's own): ROOT/containers/CID/checkpoints/NAME, restorable by docker start --checkpoint.
# The fast layout keeps the memory pages in ROOT/containers/CID/berth/pages-NAME, linked from the
# checkpoint folder, so Docker copies only the small images through containerd when it restores.
UP=../../../../../../../../../../../../../../../..

# end_exec_sessions INIT_PID: ends the processes of the container that do not descend from its
# init: \`docker exec\` sessions (terminal clients such as \`tmux attach\`, commands run through exec).
# CRIU dumps only init's tree, so an attached tmux client makes the dump fail ("external socket")
# and any other exec process would be silently lost; views (tmux servers) are in the tree and stay.
# Read from the container's cgroup with shell builtins only (a fork costs 20 ms on small VMs).
end_exec_sessions() {
  init=$1; procs=
  while IFS=: read -r _ ctl path; do
    case ",$ctl," in
      *,pids,*|*,freezer,*|*,memory,*) f=/sys/fs/cgroup/\${ctl%%,*}$path/cgroup.procs ;;
      ,,) f=/sys/fs/cgroup$path/cgroup.procs ;;
      *) continue ;;
    esac
    [ -r "$f" ] && { procs=$f; break; }
  done < "/proc/$init/cgroup"
  [ -n "$procs" ] || { echo 0; return 0; }
  ended=
  while read -r p; do
    [ "$p" = "$init" ] && continue
    q=$p inside=
    while [ -n "$q" ] && [ "$q" != 0 ] && [ "$q" != 1 ]; do
      ppid=
      while read -r k v; do [ "$k" = PPid: ] && { ppid=$v; break; }; done < "/proc/$q/status" 2>/dev/null
      [ "$ppid" = "$init" ] && { inside=1; break; }
      q=$ppid
    done
    [ -n "$inside" ] || ended="$ended $p"
  done < "$procs"
  n=0
  for p in $ended; do kill -HUP "$p" 2>/dev/null && n=$((n + 1)); done
  if [ $n -gt 0 ]; then
    sleep 0.1
    for p in $ended; do kill -KILL "$p" 2>/dev/null; done
  fi
  echo $n
}
cmd_root_end_execs() { shift; end_exec_sessions "$1"; }

# freezer_of PID: the file that freezes the cgroup of PID (v1 freezer.state, v2 cgroup.freeze).
freezer_of() {
  while IFS=: read -r _ ctl path; do
    case ",$ctl," in
      *,freezer,*) f=/sys/fs/cgroup/freezer$path/freezer.state ;;
      ,,) f=/sys/fs/cgroup$path/cgroup.freeze ;;
      *) continue ;;
    esac
    [ -e "$f" ] && { echo "$f"; return 0; }
  done < "/proc/$1/cgroup" 2>/dev/null
  return 1
}
# thaw_if_frozen FREEZER: thaws the cgroup; prints 1 if it was frozen.
thaw_if_frozen() {
  read -r st 2>/dev/null < "$1" || { echo 0; return 0; }
  case $st in
    FROZEN|FREEZING) echo THAWED > "$1" ;;
    1) echo 0 > "$1" ;;
    *) echo 0; return 0 ;;
  esac
  echo 1
}
# exec_starting PROCS: whether the cgroup holds an exec's runc init (it is setting up a docker exec).
exec_starting() {
  while read -r p; do
    comm=; read -r comm 2>/dev/null < "/proc/$p/comm"
    case $comm in runc:*) return 0 ;; esac
  done < "$1"
  return 1
}
# watch_exec_freeze FREEZER FLAG [refreeze]: while FLAG exists, undoes the one freeze that never
# ends by itself. A \`docker exec\` starting as the container is frozen (containerd's pause before a
# checkpoint, or docker pause) leaves its runc init frozen in the cgroup; the engine waits for that
# exec, holding the container, so neither finishes, and every later call on the container (inspect,
# commit, even unpause) hangs. Thawing lets the exec start. Before a checkpoint that is all (CRIU
# freezes the tree itself); for a frozen pause ("refreeze") the cgroup is frozen again once the exec
# has started, as Docker still records it paused. Prints "thawed" each time.
watch_exec_freeze() {
  fz=$1 flag=$2 refreeze=\${3:-} procs=\${1%/*}/cgroup.procs seen=0
  while [ -e "$flag" ]; do
    read -r st 2>/dev/null < "$fz" || return 0
    stuck=
    case $st in FROZEN|FREEZING|1) exec_starting "$procs" && stuck=1 ;; esac
    if [ -n "$stuck" ]; then seen=$((seen + 1)); else seen=0; fi
    # frozen twice in a row with an exec starting inside: that exec cannot finish
    if [ $seen -ge 2 ]; then
      if [ "$(thaw_if_frozen "$fz")" = 1 ]; then
        echo thawed
        if [ -n "$refreeze" ]; then
          i=0; while [ $i -lt 50 ] && exec_starting "$procs"; do sleep 0.1; i=$((i + 1)); done
          case $fz in */freezer.state) echo FROZEN > "$fz" ;; *) echo 1 > "$fz" ;; esac
        fi
      fi
      seen=0
    fi
    sleep 0.2
  done
}
cmd_root_watch_freeze() { shift; fz=$(freezer_of "$1") || return 0; watch_exec_freeze "$fz" "$2" "\${3:-}"; }
# freeze_watch_start FLAG PID [refreeze]: watches the freeze of PID's container (as root, in the
# background) until freeze_watch_stop.
freeze_watch_start() {
  watcher='' flag=$1
  printf '' 2>/dev/null > "$flag" || return 0
  as_root root-watch-freeze "$2" "$flag" "\${3:-}" > "$flag.out" 2>/dev/null &
  watcher=$!
}
# freeze_watch_stop NOTE: ends the watcher; the note says what it did, if it had to thaw.
freeze_watch_stop() {
  [ -n "\${watcher:-}" ] || return 0
  rm -f "$flag"; wait "$watcher"; watcher=
  [ -s "$flag.out" ] && emit "note $1"
  rm -f "$flag.out"
}

# root-checkpoint CID ROOT NAME PID [SYNC_PATH...]: a CRIU dump through containerd's own client,
# which writes the images straight to disk (Docker's API copies them through containerd's content
# store: 10x slower and never fsync'd). Prints "stage stopped" once the container is stopped, then
# makes everything durable and prints "bytes N".
cmd_root_checkpoint() {
  shift; id=$1 root=$2 name=$3 pid=$4; shift 4
  c=$root/containers/$id
  cpd=$c/checkpoints/$name stage=$c/berth/stage-$name pages=$c/berth/pages-$name work=$c/berth/work-$name
  [ -e "$cpd" ] && { log "checkpoint $name already exists"; return 3; }
  command -v ctr >/dev/null 2>&1 || { log "ctr (containerd's client) is not installed"; return 4; }
  shim='' sock='' ns=''
  while read -r k v; do [ "$k" = PPid: ] && { shim=$v; break; }; done < "/proc/$pid/status"
  prev=''
  for a in $(tr '\0' ' ' < "/proc/$shim/cmdline" 2>/dev/null); do
    case $prev in -address) sock=$a ;; -namespace) ns=$a ;; esac
    prev=$a
  done
  [ -S "$sock" ] || { log "containerd socket not found for pid $pid"; return 4; }
  rm -rf "$stage" "$pages" "$work"; mkdir -p "$stage" "$pages" "$work" "$c/checkpoints" && chmod 700 "$c/berth"
  n=$(end_exec_sessions "$pid")
  [ "$n" != 0 ] && echo "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
  freeze_watch_start "$work/.watch" "$pid"
  timeout 600 ctr -a "$sock" -n "\${ns:-moby}" task checkpoint --exit --image-path "$stage" --work-path "$work" "$id" >&2
  rc=$?
  freeze_watch_stop "a command started through exec froze with the checkpoint's pause; Berth thawed it so the checkpoint could go on"
  # a killed client never resumes the task it paused: nothing may stay frozen behind a failed dump
  if [ $rc -ne 0 ] && fz=$(freezer_of "$pid") && [ "$(thaw_if_frozen "$fz")" = 1 ]; then
    echo "note the failed checkpoint left the container frozen; Berth thawed it"
  fi
  if [ $rc -ne 0 ] || ! grep -q "Dumping finished successfully" "$work/dump.log" 2>/dev/null || [ ! -s "$stage/inventory.img" ]; then
    why=$(grep -m1 -E 'Error|error' "$work/dump.log" 2>/dev/null | cut -c1-200)
    [ $rc = 124 ] && why="the checkpoint did not finish within 600 s"
    log "dump failed (ctr exit $rc)"; tail -n 5 "$work/dump.log" >&2 2>/dev/null
    echo "note the fast checkpoint failed: \${why:-ctr exit $rc}"
    rm -rf "$stage" "$pages"
    return 5
  fi
  echo "stage stopped"
  for f in "$stage"/pages-*.img; do
    [ -e "$f" ] || continue
    b=\${f##*/}; mv "$f" "$pages/$b" && ln -s "$UP$pages/$b" "$stage/$b" || return 6
  done
  bytes=$(du -sb "$stage" "$pages" | awk '{s += $1} END {print s}')
  printf '{"berth":1,"name":"%s","container":"%s","bytes":%s}\n' "$name" "$id" "$bytes" > "$stage/berth.json"
  # durable before published: every image fsync'd, then the folders, then the rename
  sync "$pages"/* "$stage"/* "$pages" "$stage" || return 8
  mv "$stage" "$cpd" || return 7
  sync "$c/checkpoints" "$cpd" "$c/berth"
  # the writable layer and the volumes (syncfs of each filesystem)
  [ $# -gt 0 ] && sync -f "$@" 2>/dev/null
  echo "bytes $bytes"
}
# root-checkpoint-info CID ROOT NAME: "layout L", "bytes N", "path P"... of a complete checkpoint.
cmd_root_checkpoint_info() {
  shift; id=$1 root=$2 name=$3
  c=$root/containers/$id; cpd=$c/checkpoints/$name; pages=$c/berth/pages-$name
  [ -s "$cpd/inventory.img" ] || { echo "missing"; return 1; }
  if [ -d "$pages" ]; then
    for l in "$cpd"/pages-*.img; do if [ ! -L "$l" ] || [ ! -s "$l" ]; then echo "broken $l"; return 1; fi; done
    echo "layout split"; echo "path $cpd"; echo "path $pages"
    echo "bytes $(du -sb "$cpd" "$pages" | awk '{s += $1} END {print s}')"
  else
    echo "layout docker"; echo "path $cpd"; echo "bytes $(du -sb "$cpd" | awk '{print $1}')"
  fi
}
cmd_root_fsync_checkpoint() {
  shift; cpd=$2/containers/$1/checkpoints/$3
  [ -d "$cpd" ] && sync "$cpd"/* "$cpd"
}
# root-unfold CID ROOT NAME: puts the pages back into the checkpoint folder (Docker's plain layout),
# for a second restore attempt.
cmd_root_unfold() {
  shift; c=$2/containers/$1; cpd=$c/checkpoints/$3; pages=$c/berth/pages-$3
  for f in "$pages"/pages-*.img; do b=\${f##*/}; rm -f "$cpd/$b"; cp "$f" "$cpd/$b" || return 1; done
  sync "$cpd"/pages-*.img "$cpd"
  rm -rf "$pages"
}
# root-after-restore CID ROOT NAME: containerd 1.6 leaves its extraction folder behind on every
# restore; remove the ones that belong to this checkpoint.
cmd_root_after_restore() {
  shift; pages=$2/containers/$1/berth/pages-$3
  for d in /tmp/ctrd-checkpoint* /var/tmp/ctrd-checkpoint*; do
    [ -L "$d/pages-1.img" ] || continue
    case $(readlink "$d/pages-1.img") in *"$pages/"*) rm -rf "$d" ;; esac
  done
  return 0
}
cmd_root_remove_checkpoint() {
  shift; c=$2/containers/$1
  rm -rf "$c/checkpoints/$3" "$c/berth/pages-$3" "$c/berth/work-$3" "$c/berth/stage-$3"
}
cmd_root_probe() { shift; command -v ctr >/dev/null 2>&1 && echo "ctr yes" || echo "ctr no"; echo "uid $(id -u)"; }

# run_root_checkpoint NAME: the fast dump, its status lines relayed into this job's status.
run_root_checkpoint() {
  out=$STATE/root-$name.$$
  { as_root root-checkpoint "$CID" "$ROOT" "$1" "$PID" $SYNC_PATHS; echo "rc $?"; } | while IFS= read -r line; do
    case $line in
      "stage "*) set -- $line; stage "$2" memory ;;
      "note "*) emit "$line" ;;
      *) printf '%s\n' "$line" >> "$out" ;;
    esac
  done
  rc=1
  while read -r k v; do case $k in rc) rc=$v ;; bytes) BYTES=$v ;; esac; done < "$out"
  rm -f "$out"
  return "$rc"
}

# checkpoint_memory C NAME METHOD: stops the container with its memory in checkpoint NAME.
# Never trusts an engine's answer alone: success is a complete checkpoint and a stopped container.
checkpoint_memory() {
  c=$1 name=$2 method=$3
  if [ "$method" = fast ]; then
    run_root_checkpoint "$name"; rc=$?
    if [ $rc = 0 ]; then LAYOUT='split'; return 0; fi
    inspect_container "$c"
    # the dump failed before the kill: processes were resumed, so Docker's own path can still try
    [ "$STATUS" = running ] || { REASON="the fast checkpoint failed (code $rc) and the container is $STATUS"; return 1; }
    emit "note the fast checkpoint failed (code $rc); trying Docker's own checkpoint"
  fi
  watcher=
  if can_root 2>/dev/null; then
    n=$(as_root root-end-execs "$PID")
    [ "\${n:-0}" != 0 ] && emit "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
    # Docker pauses the task before it checkpoints, as ctr does (see watch_exec_freeze)
    freeze_watch_start "$STATE/watch-$name.$$" "$PID"
  fi
  err=$(docker checkpoint create "$c" "$name" 2>&1)
  freeze_watch_stop "a command started through exec froze with the checkpoint's pause; Berth thawed it so the checkpoint could go on"
  inspect_container "$c"
  listed=
  docker checkpoint ls "$c" 2>/dev/null | awk 'NR > 1 {print $1}' | grep -qx "$name" && listed=1
  if [ "$STATUS" != running ] && [ -n "$listed" ]; then
    stage stopped memory
    [ -n "$err" ] && [ "$err" != "$name" ] && emit "note docker answered: $(echo "$err" | head -n 1) (checkpoint verified)"
    LAYOUT=docker; BYTES=0
    if can_root 2>/dev/null; then
      info=$(as_root root-checkpoint-info "$CID" "$ROOT" "$name") || { REASON="the checkpoint is incomplete: $info"; return 1; }
      BYTES=$(echo "$info" | awk '/^bytes / {print $2}')
      as_root root-fsync-checkpoint "$CID" "$ROOT" "$name"
    fi
    return 0
  fi
  REASON="the checkpoint failed: $(echo "$err" | head -n 1)"
  return 1
}

# ----------------------------------------------------------------------------------------- pause --
# pause CONTAINER SNAPSHOT MODE METHOD IMAGE: the whole server-side part of a pause.
#   MODE memory|frozen|disk; METHOD fast|docker (memory only); IMAGE the tag a disk snapshot gets.
# Stages: begin, stopped (the sandbox no longer runs: the core may answer), durable (on disk).
#   The core may pass what it already knows (CID PID UPPER and the volume paths) to spare this
#   script the docker CLI calls (100-200 ms each) on the fast path.
cmd_pause() {
  shift; c=$1 name=$2 mode=$3 method=$4 image=$5; shift 5
  if [ $# -ge 3 ] && [ "$1" != - ]; then
    CID=$1 PID=$2 UPPER=$3 STATUS=running; shift 3
    ROOT=\${UPPER%/overlay2/*}
    [ "$ROOT" != "$UPPER" ] || ROOT=$(docker info -f '{{.DockerRootDir}}')
    SYNC_PATHS="$UPPER $*"
  else
    inspect_container "$c" || fail "container $c not found"
    SYNC_PATHS="$UPPER $(mount_sources "$c" | tr '\n' ' ')"
  fi
  stage begin
  [ "$STATUS" = running ] || [ "$STATUS" = paused ] || fail "the container is $STATUS, not running"
  LAYOUT='' BYTES=0 REASON='' fallback=''
  if [ "$mode" = memory ]; then
    if checkpoint_memory "$c" "$name" "$method"; then
      [ "$LAYOUT" = split ] || sync_paths "$ROOT" $SYNC_PATHS
      stage durable
      emit "result {\"mode\":\"memory\",\"checkpoint\":\"$name\",\"layout\":\"$LAYOUT\",\"bytes\":\${BYTES:-0}}"
      return 0
    fi
    fallback=$REASON
    inspect_container "$c"
    if [ "$STATUS" = running ]; then mode=frozen; else mode=disk; fi
    emit "fallback $fallback"
  fi
  watcher=
  if [ "$mode" = frozen ]; then
    # an exec starting as Docker freezes the container would hold it for good (see watch_exec_freeze)
    if [ -n "\${PID:-}" ] && can_root 2>/dev/null; then freeze_watch_start "$STATE/watch-$name.$$" "$PID" refreeze; fi
    # the freezer can miss a busy process tree ("unable to freeze"): try again a few times
    i=0
    while [ "$STATUS" != paused ]; do
      err=$(docker pause "$c" 2>&1 >/dev/null) && break
      i=$((i + 1)); [ $i -ge 5 ] && fail "docker pause failed: $(echo "$err" | head -n 1)"
      sleep 0.2; inspect_container "$c"
    done
    stage stopped frozen
    now_ms; FROZEN_AT=$NOW
  else
    if [ "$STATUS" = paused ]; then docker unpause "$c" >/dev/null; fi
    if [ "$STATUS" != exited ]; then err=$(docker stop -t 10 "$c" 2>&1 >/dev/null) || fail "docker stop failed: $(echo "$err" | head -n 1)"; fi
    stage stopped disk
  fi
  # the committed disk snapshot; without it the session still resumes from its own (synced) files
  size=0
  if docker commit --pause=false "$c" "$image" >/dev/null 2>"$STATE/commit-$name.err"; then
    size=$(docker image inspect -f '{{.Size}}' "$image" 2>/dev/null || echo 0)
  else
    emit "note the disk snapshot failed: $(head -n 1 "$STATE/commit-$name.err"); the session's own files are kept"
    image=
  fi
  rm -f "$STATE/commit-$name.err"
  sync_paths "$ROOT" $SYNC_PATHS
  if [ -n "$watcher" ]; then
    # an exec under way as Docker froze the container shows in its cgroup within moments: watch a
    # second and a half at least (Docker starts no new exec in a paused container)
    now_ms; left=$(( FROZEN_AT + 1500 - NOW )); [ $left -gt 0 ] && sleep "$(( left / 1000 )).$(printf '%03d' $(( left % 1000 )))"
  fi
  freeze_watch_stop "a command started through exec froze with the session; Berth let it start and froze the session again"
  stage durable
  emit "result {\"mode\":\"$mode\",\"image\":$(json_str "$image"),\"bytes\":\${size:-0},\"fallback\":$(json_str "$fallback")}"
}

# ---------------------------------------------------------------------------------------- resume --
# restarted C: the container runs and its StartedAt changed since inspect_container saw it last
# (Docker's start of a running container is a silent no-op: "no error" alone proves nothing).
restarted() {
  was=$STARTED
  inspect_container "$1" || return 1
  [ "$STATUS" = running ] && [ "$STARTED" != "$was" ] && return 0
  STARTED=$was
  return 1
}
# resume CONTAINER MODE CHECKPOINT: memory (restore the checkpoint), frozen (thaw), disk (cold boot).
# A restore that fails falls back to a cold boot and says so.
cmd_resume() {
  shift; c=$1 mode=$2 name=$3
  inspect_container "$c" || fail "container $c not found"
  stage begin
  if [ "$STATUS" = running ]; then emit "result {\"mode\":\"none\",\"already\":true}"; return 0; fi
  fallback=
  if [ "$mode" = frozen ]; then
    if [ "$STATUS" = paused ]; then
      docker unpause "$c" >/dev/null || fail "docker unpause failed"
      inspect_container "$c"; [ "$STATUS" = running ] || fail "the container is $STATUS after unpause"
      stage running
      emit "result {\"mode\":\"frozen\"}"
      return 0
    fi
    fallback="the frozen memory is gone (the container is $STATUS: the server or its engine restarted)"
  elif [ "$mode" = memory ]; then
    ok=
    err=$(docker start --checkpoint "$name" "$c" 2>&1)
    restarted "$c" && ok=1
    if [ -z "$ok" ]; then
      # Docker sometimes reports "already exists" for content it then restores on a second try
      case $err in *"already exists"*) sleep 1; err=$(docker start --checkpoint "$name" "$c" 2>&1); restarted "$c" && ok=1 ;; esac
    fi
    if [ -z "$ok" ] && [ "$STATUS" != running ] && can_root 2>/dev/null; then
      if as_root root-checkpoint-info "$CID" "$ROOT" "$name" | grep -q '^layout split'; then
        emit "note restore failed ($(echo "$err" | head -n 1)); retrying with the pages in Docker's plain layout"
        as_root root-unfold "$CID" "$ROOT" "$name" && err=$(docker start --checkpoint "$name" "$c" 2>&1) && restarted "$c" && ok=1
      fi
    fi
    if [ -n "$ok" ]; then
      stage running
      emit "result {\"mode\":\"memory\"}"
      if can_root 2>/dev/null; then as_root root-after-restore "$CID" "$ROOT" "$name"; fi
      return 0
    fi
    inspect_container "$c"
    [ "$STATUS" = running ] && fail "the container runs but was not restored from $name"
    fallback="the memory restore failed: $(echo "$err" | head -n 1)"
  fi
  if [ "$STATUS" = paused ]; then docker unpause "$c" >/dev/null 2>&1; docker stop -t 10 "$c" >/dev/null 2>&1; inspect_container "$c"; fi
  err=$(docker start "$c" 2>&1)
  restarted "$c" || fail "the container did not start: $(echo "$err" | head -n 1)"
  stage running
  emit "result {\"mode\":\"disk\",\"fallback\":$(json_str "$fallback")}"
}

# -------------------------------------------------------------------------- checkpoint commands --
# For other verbs (move, fork, rewind): one-shot, attached; each prints "key value" lines.
cmd_checkpoint_create() {
  shift; c=$1 name=$2 method=\${3:-docker}
  inspect_container "$c" || fail "container $c not found"
  [ "$STATUS" = running ] || fail "the container is $STATUS, not running"
  SYNC_PATHS="$UPPER $(mount_sources "$c" | tr '\n' ' ')"
  checkpoint_memory "$c" "$name" "$method" || fail "$REASON"
  sync_container_fs "$c" "$ROOT"
  echo "layout $LAYOUT"; echo "bytes \${BYTES:-0}"
}
cmd_checkpoint_info() {
  shift; inspect_container "$1" || fail "container $1 not found"
  echo "container $CID"; echo "status $STATUS"; echo "root $ROOT"
  as_root root-checkpoint-info "$CID" "$ROOT" "$2"
}
cmd_checkpoint_remove() {
  shift; inspect_container "$1" || { echo "removed 0"; return 0; }
  docker checkpoint rm "$1" "$2" >/dev/null 2>&1
  if can_root 2>/dev/null; then as_root root-remove-checkpoint "$CID" "$ROOT" "$2"; fi
  echo "removed 1"
}
# after-restore CID ROOT NAME: the clean-up a fast restore leaves for later (off its critical path).
cmd_after_restore() { shift; if can_root 2>/dev/null; then as_root root-after-restore "$1" "$2" "$3"; fi; }
cmd_image_remove() { shift; for i in "$@"; do docker rmi "$i" >/dev/null 2>&1; done; return 0; }
cmd_sync() { shift; inspect_container "$1" || fail "container $1 not found"; sync_container_fs "$1" "$ROOT"; echo "synced 1"; }
# probe: what this server offers: "uid N", "ctr yes|no", "root yes|no"
cmd_probe() {
  if can_root 2>/dev/null; then echo "root yes"; as_root root-probe; else echo "root no"; echo "uid $(id -u)"; fi
}

# ------------------------------------------------------------------------------ transfers (issue 4) --
# root-copy-checkpoint SRC DEST: a checkpoint folder copied for another container on this server
# (pages hard-linked when they can be: restores only read them), in Docker's plain layout.
cmd_root_copy_checkpoint() {
  shift; xs=$1 xd=$2
  [ -s "$xs/inventory.img" ] || { log "no checkpoint at $xs"; return 3; }
  rm -rf "$xd.tmp"; mkdir -p "\${xd%/*}" || return 4
  cp -R -L -l "$xs" "$xd.tmp" 2>/dev/null || { rm -rf "$xd.tmp"; cp -R -L "$xs" "$xd.tmp"; } || return 4
  rm -rf "$xd" && mv "$xd.tmp" "$xd" || return 5
  sync -f "$xd" 2>/dev/null || sync
}
# checkpoint-copy FROM NAME TO [NEWNAME]: a checkpoint of container FROM, for container TO.
cmd_checkpoint_copy() {
  shift; xfrom=$1 xn=$2 xto=$3 xnn=\${4:-$2}
  inspect_container "$xfrom" || fail "container $xfrom not found"; xs=$ROOT/containers/$CID/checkpoints/$xn
  inspect_container "$xto" || fail "container $xto not found"; xd=$ROOT/containers/$CID/checkpoints/$xnn
  can_root || fail "the root helper cannot start on this server"
  as_root root-copy-checkpoint "$xs" "$xd" || fail "could not copy checkpoint $xn"
  echo "copied 1"
}

# A move's parts (root helper on both sides) go as ONE tar whose members are named after their
# own folders (diff/ a writable layer, _data/ a volume's files, NAME/ and pages-NAME/ a
# checkpoint), read by root on the source and unpacked by root straight into place on the
# target. The source keeps a copy of the stream and the target keeps what it received, so a cut
# stream continues from the first byte that did not arrive.
XFER_TAR_OPTS="--numeric-owner --xattrs --xattrs-include=* --pax-option=delete=atime,delete=ctime"
# root-xfer-tar ARG...: the tar of the members ("-C DIR MEMBER" pairs), to stdout
cmd_root_xfer_tar() {
  shift; set -f  # the arguments carry patterns (--exclude) that must reach tar as they are
  # shellcheck disable=SC2086
  tar $XFER_TAR_OPTS -cpf - "$@"
}
# root-xfer-tar-file FILE UID GID ARG...: the same, written to FILE (owned by UID:GID from the
# start, so its owner can read it while it grows); the tar's pid goes to FILE.pid first
cmd_root_xfer_tar_file() {
  shift; xf=$1 xu=$2 xg=$3; shift 3; set -f
  : > "$xf" && chown "$xu:$xg" "$xf" || return 4
  echo $$ > "$xf.pid"
  # shellcheck disable=SC2086
  exec tar $XFER_TAR_OPTS -cpf "$xf" "$@"
}
# root-xfer-untar-follow FILE PID MAP...: unpacks FILE while the process PID (the one writing it)
# runs, and what it wrote until it ended (tail follows the file as it grows)
cmd_root_xfer_untar_follow() {
  shift; xf=$1 xp=$2; shift 2
  tail -c +1 --pid="$xp" -s 0.1 -f "$xf" | cmd_root_xfer_untar_file - - "$@"
}
# root-xfer-untar-file FILE MAP...: unpacks FILE ("-": stdin) straight into place, each member
# renamed by MAP ("MEMBER DEST" pairs): diff to a writable layer, _data to a volume's folder, a
# checkpoint NAME to its folder and its pages-NAME into that same folder (Docker's plain layout)
cmd_root_xfer_untar_file() {
  shift; xf=$1; shift; set -f
  xt=
  while [ $# -ge 2 ]; do
    xt="$xt --transform=s|^$1\$|$2| --transform=s|^$1/|$2/|"
    shift 2
  done
  # shellcheck disable=SC2086
  tar -C / --numeric-owner --xattrs --xattrs-include=* $xt -xpf "$xf"
}
# xfer-status STAGE: "size N" when STAGE holds a complete copy of a stream, "have N" for what arrived
# (a copy still being written, by a send whose reader went away, is waited for)
cmd_xfer_status() {
  shift; xd=$1
  i=0
  while [ -f "$xd/bundle.writing" ] && kill -0 "$(cat "$xd/bundle.writing" 2>/dev/null)" 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
  if [ -f "$xd/bundle.size" ]; then echo "size $(cat "$xd/bundle.size")"; fi
  if [ -f "$xd/bundle.tar" ]; then echo "have $(wc -c < "$xd/bundle.tar")"; else echo "have 0"; fi
}
# xfer-send STAGE OFFSET DIR MEMBER [DIR MEMBER]...: the stream of those members from byte OFFSET;
# a complete copy in STAGE (an earlier try's) serves a retry. As root the tar streams while its
# copy is written; through the helper the copy is written first and then read (a docker exec's
# output is slower than the disk).
cmd_xfer_send() {
  shift; xd=$1 xo=$2; shift 2
  trap '' PIPE
  if [ -f "$xd/bundle.size" ]; then tail -c +$((xo + 1)) "$xd/bundle.tar"; return $?; fi
  [ "$xo" = 0 ] || fail "no complete copy to continue from"
  # pairs: "DIR MEMBER", or "-x PATTERN" to leave out (the split layout's links to its pages)
  xargs_= xex=
  while [ $# -ge 2 ]; do
    if [ "$1" = -x ]; then xex="$xex --exclude=$2"; else xargs_="$xargs_ -C $1 $2"; fi
    shift 2
  done
  xargs_="$xex$xargs_"
  mkdir -p "$xd" || fail "cannot create $xd"
  rm -f "$xd/bundle.tar" "$xd/bundle.size" "$xd/rc"
  echo $$ > "$xd/bundle.writing"
  if [ "$(id -u)" = 0 ]; then
    # tee -p: the copy is completed even if the connection reading the stream goes away
    # shellcheck disable=SC2086
    { cmd_root_xfer_tar - $xargs_; echo $? > "$xd/rc"; } | tee -p "$xd/bundle.tar"
    [ "$(cat "$xd/rc" 2>/dev/null)" = 0 ] || { log "packing the parts failed"; return 1; }
  else
    can_root || fail "the root helper cannot start on this server"
    # root writes the copy; it is sent as it grows (a docker exec's output is slower than the disk)
    rm -f "$xd/bundle.tar.pid"
    # shellcheck disable=SC2086
    as_root root-xfer-tar-file "$xd/bundle.tar" "$(id -u)" "$(id -g)" $xargs_ & xroot=$!
    i=0
    while [ ! -s "$xd/bundle.tar.pid" ]; do
      kill -0 $xroot 2>/dev/null || { wait $xroot; fail "packing the parts failed"; }
      i=$((i + 1)); [ $i -gt 600 ] && fail "packing the parts did not start"
      sleep 0.05
    done
    # a reader that goes away does not stop the copy: the next try sends from it
    tail -c +1 --pid="$(cat "$xd/bundle.tar.pid")" -s 0.1 -f "$xd/bundle.tar"
    wait $xroot || { log "packing the parts failed"; return 1; }
    rm -f "$xd/bundle.tar.pid"
  fi
  wc -c < "$xd/bundle.tar" | tr -d ' ' > "$xd/bundle.size.tmp" && mv "$xd/bundle.size.tmp" "$xd/bundle.size"
  rm -f "$xd/bundle.writing"
}
# xfer-receive STAGE OFFSET MAP...: appends the stream to STAGE/bundle.tar from byte OFFSET and
# unpacks the whole of it (an earlier try's bytes, then the rest) as root straight into place
# (MAP: see root-xfer-untar-file): while it arrives as root, from the file through the helper.
cmd_xfer_receive() {
  shift; xd=$1 xo=$2; shift 2
  mkdir -p "$xd" || fail "cannot create $xd"
  xf=$xd/bundle.tar
  if [ "$xo" = 0 ]; then : > "$xf"; else truncate -s "$xo" "$xf" || fail "cannot continue $xf"; fi
  if [ "$(id -u)" = 0 ]; then
    # tee -p: what arrives is kept even if unpacking stops early; a retry continues from it
    { if [ "$xo" != 0 ]; then cat "$xf"; fi; tee -p -a "$xf"; } | cmd_root_xfer_untar_file - - "$@"
    [ $? = 0 ] || fail "the parts did not arrive whole ($(wc -c < "$xf") bytes so far)"
  else
    can_root || fail "the root helper cannot start on this server"
    # what arrives is appended to the file, and root unpacks the file as it grows
    exec 3<&0
    cat <&3 >> "$xf" & xcat=$!
    exec 3<&-
    as_root root-xfer-untar-follow "$xf" "$xcat" "$@"; xrc=$?
    wait $xcat; xcrc=$?
    [ $xrc = 0 ] && [ $xcrc = 0 ] || fail "the parts did not arrive whole ($(wc -c < "$xf") bytes so far)"
  fi
  echo "bytes $(wc -c < "$xf")"
}
# xfer-done STAGE: a transfer completed: its staged copy goes
cmd_xfer_done() { shift; rm -rf "$1"; echo "removed 1"; }

# dispatch COMMAND ARGS...: calls cmd_<command> with the command as $1 (without forking tr).
dispatch() {
  case $1 in
    pause) cmd_pause "$@" ;;
    resume) cmd_resume "$@" ;;
    after-restore) cmd_after_restore "$@" ;;
    checkpoint-create) cmd_checkpoint_create "$@" ;;
    checkpoint-info) cmd_checkpoint_info "$@" ;;
    checkpoint-remove) cmd_checkpoint_remove "$@" ;;
    image-remove) cmd_image_remove "$@" ;;
    sync) cmd_sync "$@" ;;
    probe) cmd_probe "$@" ;;
    root-checkpoint) cmd_root_checkpoint "$@" ;;
    root-checkpoint-info) cmd_root_checkpoint_info "$@" ;;
    root-fsync-checkpoint) cmd_root_fsync_checkpoint "$@" ;;
    root-unfold) cmd_root_unfold "$@" ;;
    root-after-restore) cmd_root_after_restore "$@" ;;
    root-remove-checkpoint) cmd_root_remove_checkpoint "$@" ;;
    root-end-execs) cmd_root_end_execs "$@" ;;
    root-watch-freeze) cmd_root_watch_freeze "$@" ;;
    root-probe) cmd_root_probe "$@" ;;
    checkpoint-copy) cmd_checkpoint_copy "$@" ;;
    xfer-status) cmd_xfer_status "$@" ;;
    xfer-send) cmd_xfer_send "$@" ;;
    xfer-receive) cmd_xfer_receive "$@" ;;
    xfer-done) cmd_xfer_done "$@" ;;
    root-copy-checkpoint) cmd_root_copy_checkpoint "$@" ;;
    root-xfer-tar) cmd_root_xfer_tar "$@" ;;
    root-xfer-tar-file) cmd_root_xfer_tar_file "$@" ;;
    root-xfer-untar-follow) cmd_root_xfer_untar_follow "$@" ;;
    root-xfer-untar-file) cmd_root_xfer_untar_file "$@" ;;
    *) echo "berth-server.sh: unknown command $1" >&2; return 2 ;;
  esac
}

case \${1:-} in
  detach) shift; cmd_detach "$@" ;;
  start) shift; cmd_start "$@" ;;
  run-job) shift; cmd_run_job "$@" ;;
  follow) shift; cmd_follow "$@" ;;
  forget) shift; cmd_forget "$@" ;;
  "") echo "usage: berth-server.sh detach|start|follow|forget|pause|resume|checkpoint-*|sync|probe ..." >&2; exit 2 ;;
  *) dispatch "$@" ;;
esac
`

/** The installed file's name carries a hash of the text, so an updated Berth installs its own. */
export const SERVER_SCRIPT_HASH = createHash('sha256').update(SERVER_SCRIPT).digest('hex').slice(0, 12)
