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

now_ms() { t=$(date +%s%3N); case $t in *N) t=$(( $(date +%s) * 1000 ));; esac; echo "$t"; }
T0=$(now_ms)
# Status lines: "stage NAME MS [ARG]", "note TEXT", "fallback WHY", "result JSON", "error TEXT". In a job they go to the
# job's status file (the core follows it); otherwise to stdout.
emit() { if [ -n "$J" ]; then printf '%s\n' "$*" >> "$J/status"; else printf '%s\n' "$*"; fi; }
stage() { emit "stage $1 $(( $(now_ms) - T0 )) \${2:-}"; }
fail() { emit "error $*"; exit 1; }
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n\t' '  ')"; }

# ---------------------------------------------------------------------------------------- jobs --
# detach JOB COMMAND ARGS...: runs COMMAND in its own session, immune to the connection's end.
cmd_detach() {
  job=$1; shift
  d=$STATE/jobs/$job
  mkdir -p "$d" || fail "cannot create the job folder $d"
  : > "$d/status"; rm -f "$d/rc"
  if command -v setsid >/dev/null 2>&1; then
    BERTH_JOB=$d setsid nohup sh "$SELF" run-job "$@" </dev/null >"$d/log" 2>&1 &
  else
    BERTH_JOB=$d nohup sh "$SELF" run-job "$@" </dev/null >"$d/log" 2>&1 &
  fi
  echo $! > "$d/pid"
}
cmd_run_job() {
  ( "cmd_$(echo "$1" | tr - _)" "$@" ) 2>>"$J/log"
  rc=$?
  echo "$rc" > "$J/rc.tmp" && mv "$J/rc.tmp" "$J/rc"
}
# follow JOB [FROM]: prints the job's status lines from line FROM on, as they come, then "rc N"
# ("rc lost" if the job died without finishing: a reboot, a kill).
cmd_follow() {
  d=$STATE/jobs/$1; n=\${2:-0}
  [ -d "$d" ] || { echo "rc missing"; return 0; }
  while :; do
    fin=; [ -f "$d/rc" ] && fin=1
    if [ -f "$d/status" ]; then
      total=$(wc -l < "$d/status")
      if [ "$total" -gt "$n" ]; then sed -n "$((n + 1)),\${total}p" "$d/status"; n=$total; fi
    fi
    if [ -n "$fin" ]; then echo "rc $(cat "$d/rc")"; return 0; fi
    pid=$(cat "$d/pid" 2>/dev/null)
    if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || ! grep -q run-job "/proc/$pid/cmdline" 2>/dev/null; then
      # the job may have finished between the two checks
      [ -f "$d/rc" ] && continue
      echo "rc lost"; return 0
    fi
    sleep 0.03
  done
}
# start JOB COMMAND ARGS...: detach, then follow (one round trip for the core).
cmd_start() { job=$1; shift; cmd_detach "$job" "$@" && cmd_follow "$job" 0; }
# forget JOB...: removes finished jobs' folders once the core has recorded their outcome.
cmd_forget() { for job in "$@"; do [ -f "$STATE/jobs/$job/rc" ] && rm -rf "$STATE/jobs/$job"; done; return 0; }

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
# as_root COMMAND ARGS...: runs one of this script's root-* commands as root on the host.
as_root() {
  if [ "$(id -u)" = 0 ]; then ( "cmd_$(echo "$1" | tr - _)" "$@" ); return $?; fi
  ensure_helper || { log "cannot start the helper container"; return 90; }
  find_chroot
  docker exec -i -e BERTH_HOME_ID="$HOME_ID" "$(helper_name)" "$CHROOT" /host /bin/sh -s "$@" < "$SELF"
}
can_root() { [ "$(id -u)" = 0 ] || ensure_helper; }

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
  prev=
  for a in $(tr '\0' ' ' < "/proc/$shim/cmdline" 2>/dev/null); do
    case $prev in -address) sock=$a ;; -namespace) ns=$a ;; esac
    prev=$a
  done
  [ -S "$sock" ] || { log "containerd socket not found for pid $pid"; return 4; }
  rm -rf "$stage" "$pages" "$work"; mkdir -p "$stage" "$pages" "$work" "$c/checkpoints" && chmod 700 "$c/berth"
  n=$(end_exec_sessions "$pid")
  [ "$n" != 0 ] && echo "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
  timeout 600 ctr -a "$sock" -n "\${ns:-moby}" task checkpoint --exit --image-path "$stage" --work-path "$work" "$id" >&2
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "Dumping finished successfully" "$work/dump.log" 2>/dev/null || [ ! -s "$stage/inventory.img" ]; then
    log "dump failed (ctr exit $rc)"; tail -n 5 "$work/dump.log" >&2 2>/dev/null
    echo "note $(grep -m1 -E 'Error|error' "$work/dump.log" 2>/dev/null | cut -c1-200)"
    rm -rf "$stage" "$pages"
    return 5
  fi
  echo "stage stopped"
  for f in "$stage"/pages-*.img; do
    [ -e "$f" ] || continue
    b=\${f##*/}; mv "$f" "$pages/$b" && ln -s "$UP$pages/$b" "$stage/$b" || return 6
  done
  bytes=$(du -sb "$stage" "$pages" | awk '{s += $1} END {print s}')
  printf '{"berth":1,"name":"%s","container":"%s","bytes":%s,"created":"%s"}\n' "$name" "$id" "$bytes" "$(date -u +%FT%TZ)" > "$stage/berth.json"
  # durable before published: every image fsync'd, then the folders, then the rename
  sync "$pages"/* "$stage"/* "$pages" "$stage" || return 8
  mv "$stage" "$cpd" || return 7
  sync "$c/checkpoints" "$cpd" "$c/berth"
  # the writable layer and the volumes (syncfs of each filesystem)
  for p in "$@"; do sync -f "$p" 2>/dev/null; done
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
      "stage "*) stage "$(echo "$line" | cut -d' ' -f2)" memory ;;
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
    if run_root_checkpoint "$name"; then LAYOUT='split'; return 0; fi
    rc=$?
    inspect_container "$c"
    # the dump failed before the kill: processes were resumed, so Docker's own path can still try
    [ "$STATUS" = running ] || { REASON="the fast checkpoint failed (code $rc) and the container is $STATUS"; return 1; }
    emit "note the fast checkpoint failed (code $rc); trying Docker's own checkpoint"
  elif can_root 2>/dev/null; then
    n=$(as_root root-end-execs "$PID")
    [ "\${n:-0}" != 0 ] && emit "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
  fi
  err=$(docker checkpoint create "$c" "$name" 2>&1)
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
  if [ "$mode" = frozen ]; then
    # the freezer can miss a busy process tree ("unable to freeze"): try again a few times
    i=0
    while [ "$STATUS" != paused ]; do
      err=$(docker pause "$c" 2>&1 >/dev/null) && break
      i=$((i + 1)); [ $i -ge 5 ] && fail "docker pause failed: $(echo "$err" | head -n 1)"
      sleep 0.2; inspect_container "$c"
    done
    stage stopped frozen
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

cmd=\${1:-}
case $cmd in
  detach) shift; cmd_detach "$@" ;;
  start) shift; cmd_start "$@" ;;
  run-job) shift; cmd_run_job "$@" ;;
  follow) shift; cmd_follow "$@" ;;
  forget) shift; cmd_forget "$@" ;;
  pause|resume|after-restore|checkpoint-create|checkpoint-info|checkpoint-remove|image-remove|sync|probe|root-*)
    "cmd_$(echo "$cmd" | tr - _)" "$@" ;;
  *) echo "usage: berth-server.sh detach|follow|forget|pause|resume|checkpoint-*|sync|probe ..." >&2; exit 2 ;;
esac
`

/** The installed file's name carries a hash of the text, so an updated Berth installs its own. */
export const SERVER_SCRIPT_HASH = createHash('sha256').update(SERVER_SCRIPT).digest('hex').slice(0, 12)
