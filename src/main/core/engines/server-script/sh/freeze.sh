
# ---------------------------------------------------------------------------------------- freeze --
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
freeze_cgroup() { case $1 in */freezer.state) echo FROZEN > "$1" ;; *) echo 1 > "$1" ;; esac; }
# root-freezer PID frozen|thawed: makes the cgroup of PID match what Docker records for it. A
# checkpoint that failed or was ended half way leaves it as CRIU left it (CRIU thaws the cgroup
# once it holds the processes), while Docker still records the container paused, or not.
cmd_root_freezer() {
  shift; fz=$(freezer_of "$1") || return 0
  if [ "$2" = frozen ]; then freeze_cgroup "$fz"; else thaw_if_frozen "$fz" >/dev/null; fi
}
ppid_of() { PP=; while read -r k v; do [ "$k" = PPid: ] && { PP=$v; return 0; }; done < "/proc/$1/status" 2>/dev/null; return 1; }
# exec_starting PROCS SHIM INIT: whether the cgroup holds an exec's runc init, a process that is
# setting up a `docker exec`. It is told by its parent, never by its name (a session names its
# processes as it likes): its parent is outside the container's cgroup, and is the `runc exec` that
# the container's shim started. (A started exec's process has the shim itself as its parent; the
# session's own processes have parents inside the container.)
exec_starting() {
  es_procs=$1 es_shim=$2 es_init=$3
  es_in=" $(tr '\n' ' ' < "$es_procs" 2>/dev/null) "
  for es_p in $es_in; do
    [ "$es_p" = "$es_init" ] && continue
    ppid_of "$es_p" || continue
    es_parent=$PP
    case $es_in in *" $es_parent "*) continue ;; esac
    [ "$es_parent" = "$es_shim" ] && continue
    ppid_of "$es_parent" && [ "$PP" = "$es_shim" ] && return 0
  done
  return 1
}
# watch_exec_freeze FREEZER FLAG INIT [refreeze]: while FLAG exists, undoes the one freeze that
# never ends by itself. A `docker exec` starting as the container is frozen (containerd's pause
# before a checkpoint, or docker pause) leaves its runc init frozen in the cgroup; the engine waits
# for that exec, holding the container, so neither finishes, and every later call on the container
# (inspect, commit, even unpause) hangs. Thawing lets the exec start. Before a checkpoint that is
# all (CRIU freezes the tree itself); for a frozen pause ("refreeze") the cgroup is frozen again
# once the exec has started, as Docker still records it paused. Prints "thawed" each time.
watch_exec_freeze() {
  fz=$1 flag=$2 init=$3 refreeze=${4:-} procs=${1%/*}/cgroup.procs seen=0
  ppid_of "$init" || return 0
  shim=$PP
  while [ -e "$flag" ]; do
    read -r st 2>/dev/null < "$fz" || return 0
    stuck=
    case $st in FROZEN|FREEZING|1) exec_starting "$procs" "$shim" "$init" && stuck=1 ;; esac
    if [ -n "$stuck" ]; then seen=$((seen + 1)); else seen=0; fi
    # frozen twice in a row with an exec starting inside: that exec cannot finish
    if [ $seen -ge 2 ]; then
      if [ "$(thaw_if_frozen "$fz")" = 1 ]; then
        echo thawed
        if [ -n "$refreeze" ]; then
          i=0; while [ $i -lt 50 ] && exec_starting "$procs" "$shim" "$init"; do sleep 0.1; i=$((i + 1)); done
          freeze_cgroup "$fz"
        fi
      fi
      seen=0
    fi
    sleep 0.2
  done
}
cmd_root_watch_freeze() { shift; fz=$(freezer_of "$1") || return 0; watch_exec_freeze "$fz" "$2" "$1" "${3:-}"; }
# freeze_watch_start FLAG PID [refreeze]: watches the freeze of PID's container (as root, in the
# background) until freeze_watch_stop.
freeze_watch_start() {
  watcher='' flag=$1
  printf '' 2>/dev/null > "$flag" || return 0
  as_root root-watch-freeze "$2" "$flag" "${3:-}" > "$flag.out" 2>/dev/null &
  watcher=$!
}
# freeze_watch_stop NOTE: ends the watcher; the note says what it did, if it had to thaw.
freeze_watch_stop() {
  [ -n "${watcher:-}" ] || return 0
  rm -f "$flag"; wait "$watcher"; watcher=
  [ -s "$flag.out" ] && emit "note $1"
  rm -f "$flag.out"
}

# -------------------------------------------------------------------------------------- freeze-all --
# Stage one of a lid-close pause, once per server before any memory is written: every session of
# the server frozen together and the files of all of them made durable by one sync. One pause job
# per session did this before, each with its own docker CLI and root-helper calls (a fifth of a
# second to a second each on a loaded server), so the last sessions froze seconds late.

# docker_pause_within MS OUT C...: `docker pause C...` (one client pausing them in turn, printing
# each name once it is paused), ended after MS (returns 124 then). OUT gets what it printed, OUT.err
# its errors. (Ending the client does not undo a pause the engine goes on with: callers inspect.)
docker_pause_within() {
  dp_ms=$1 dp_out=$2; shift 2
  now_ms; dp_t=$NOW
  docker pause "$@" > "$dp_out" 2> "$dp_out.err" &
  dp_pid=$!
  while kill -0 "$dp_pid" 2>/dev/null; do
    now_ms
    if [ $(( NOW - dp_t )) -ge "$dp_ms" ]; then kill -KILL "$dp_pid" 2>/dev/null; wait "$dp_pid" 2>/dev/null; return 124; fi
    sleep 0.02
  done
  wait "$dp_pid"
}

# sync_fs_of PATH...: the file systems holding PATHs made durable, each once: one syncfs per path
# when this user may open them all, else one per mount point (a user outside Docker's data root
# reaches it through its mount point), else everything (sync).
sync_fs_of() {
  [ $# -gt 0 ] || return 0
  sync -f "$@" 2>/dev/null && return 0
  sf_mps=$(df -P "$@" 2>/dev/null | awk -v want="$#" 'NR > 1 {n++; m[$6] = 1} END {if (n == want) for (k in m) print k}')
  # shellcheck disable=SC2086 # one mount point per word
  [ -n "$sf_mps" ] && sync -f $sf_mps 2>/dev/null && return 0
  sync
}

# root-freeze-prep FLAG PID:MODE...: as root, before the freeze: the exec sessions of each memory
# pause's container ended (a frozen process cannot die; a checkpoint cannot hold them), printing
# "ended PID N"; then "ready", and the exec-freeze watcher on every container (watch_exec_freeze,
# with refreeze: Docker records them paused) while FLAG exists.
cmd_root_freeze_prep() {
  shift; rf_flag=$1; shift
  for rf_pm in "$@"; do
    rf_pid=${rf_pm%%:*}
    { is_uint "$rf_pid" && [ "$rf_pid" -gt 1 ]; } || continue
    [ "${rf_pm#*:}" = memory ] && echo "ended $rf_pid $(end_exec_sessions "$rf_pid")"
  done
  echo ready
  # the watchers end once the flag goes: freeze-all removes it, and this does within 10 s whatever happens
  ( sleep 10; rm -f "$rf_flag" ) < /dev/null > /dev/null 2>&1 &
  rf_timer=$! rf_watchers=
  for rf_pm in "$@"; do
    rf_pid=${rf_pm%%:*}
    { is_uint "$rf_pid" && [ "$rf_pid" -gt 1 ]; } || continue
    ( rf_fz=$(freezer_of "$rf_pid") && watch_exec_freeze "$rf_fz" "$rf_flag" "$rf_pid" refreeze | sed "s/^/$rf_pid /" ) &
    rf_watchers="$rf_watchers $!"
  done
  # shellcheck disable=SC2086 # one pid per word
  [ -n "$rf_watchers" ] && wait $rf_watchers
  kill "$rf_timer" 2>/dev/null
}

# freeze-all [limit=MS] -- CID PID MODE PATH... [-- CID PID MODE PATH...]...: freezes the containers
# (MODE memory|frozen: what their pause keeps; PATH: the writable layer and volumes to make durable)
# and prints, per container, "frozen CID" (paused by Docker, its files durable) or "failed CID WHY",
# "ended CID N" (exec sessions ended first), then "ms N" (what it took here). Every wait is bounded:
# the root steps by MS, the joint docker pause by MS; if that one does not answer, each container not
# yet paused is tried in a client of its own, side by side, for MS more; one that hangs holds no other.
cmd_freeze_all() {
  shift
  limit=1500
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    case $1 in limit=*) is_uint "${1#*=}" && limit=${1#*=} ;; *) fail "unknown freeze-all option: $1" ;; esac
    shift
  done
  mkdir -p "$STATE" && fa_dir=$(mktemp -d "$STATE/freeze.XXXXXX") || fail "cannot create a folder in $STATE"
  fa_cids='' fa_prep=''
  while [ $# -gt 0 ]; do
    [ "$1" = -- ] && shift
    [ $# -ge 3 ] || break
    fa_c=$1 fa_pid=$2 fa_mode=$3; shift 3
    case $fa_c in ''|*[!0-9a-f]*) rm -rf "$fa_dir"; fail "not a container id: $fa_c" ;; esac
    { is_uint "$fa_pid" && [ "$fa_pid" -gt 1 ]; } || { rm -rf "$fa_dir"; fail "not a container's pid: $fa_pid"; }
    case $fa_mode in memory|frozen) ;; *) rm -rf "$fa_dir"; fail "not a pause mode: $fa_mode" ;; esac
    fa_cids="$fa_cids $fa_c"
    fa_prep="$fa_prep $fa_pid:$fa_mode"
    printf '%s\n' "$fa_pid" > "$fa_dir/$fa_c.pid"
    printf '' > "$fa_dir/$fa_c.paths"
    while [ $# -gt 0 ] && [ "$1" != -- ]; do printf '%s\n' "$1" >> "$fa_dir/$fa_c.paths"; shift; done
  done
  [ -n "$fa_cids" ] || { rm -rf "$fa_dir"; echo "ms 0"; return 0; }
  # the root steps, in the background: exec sessions ended, then the watchers, until the flag goes
  # (a detached timer removes it once the pause jobs' own watchers have taken over)
  flag=$fa_dir/watch
  printf '' > "$flag"
  # (exec: a function called with redirections keeps the caller's stdout open in a saved fd, which
  # the watchers would inherit and hold the core's connection open with)
  # shellcheck disable=SC2086 # one PID:MODE per word
  ( exec > "$fa_dir/prep" 2>/dev/null < /dev/null; as_root root-freeze-prep "$flag" $fa_prep ) &
  fa_root=$!
  now_ms; fa_t=$NOW
  while ! grep -qx ready "$fa_dir/prep" 2>/dev/null && kill -0 "$fa_root" 2>/dev/null; do
    now_ms; [ $(( NOW - fa_t )) -ge "$limit" ] && { echo "note the exec sessions could not be ended within $(secs "$limit") s; freezing anyway"; break; }
    sleep 0.02
  done
  # shellcheck disable=SC2086 # one id per word
  docker_pause_within "$limit" "$fa_dir/paused" $fa_cids; fa_rc=$?
  fa_why=
  if [ $fa_rc = 124 ]; then
    fa_why="docker pause did not answer within $(secs "$limit") s"
    fa_singles=
    for c in $fa_cids; do
      grep -qx "$c" "$fa_dir/paused" && continue
      docker_pause_within "$limit" "$fa_dir/paused-$c" "$c" &
      fa_singles="$fa_singles $!"
    done
    # (only these: the root steps run on in the background)
    # shellcheck disable=SC2086 # one pid per word
    [ -n "$fa_singles" ] && wait $fa_singles
    for c in $fa_cids; do [ -s "$fa_dir/paused-$c" ] && cat "$fa_dir/paused-$c" >> "$fa_dir/paused"; done
  fi
  # the files of every frozen container made durable at once
  fa_paths=
  for c in $fa_cids; do grep -qx "$c" "$fa_dir/paused" && fa_paths="$fa_paths $(tr '\n' ' ' < "$fa_dir/$c.paths")"; done
  # shellcheck disable=SC2086 # one path per word (the core passes none with blanks)
  sync_fs_of $fa_paths
  for c in $fa_cids; do
    read -r fa_pid < "$fa_dir/$c.pid"
    n=$(awk -v p="$fa_pid" '$1 == "ended" && $2 == p {print $3}' "$fa_dir/prep" 2>/dev/null)
    [ "${n:-0}" != 0 ] && echo "ended $c $n"
    if grep -qx "$c" "$fa_dir/paused"; then echo "frozen $c"; continue; fi
    err=$(grep -h -- "${c%"${c#????????????}"}" "$fa_dir/paused.err" "$fa_dir/paused-$c.err" 2>/dev/null | head -n 1)
    echo "failed $c ${err:-${fa_why:-docker pause did not pause it}}"
  done
  now_ms; echo "ms $(( NOW - T0 ))"
  # the watchers stay on a while longer (each pause job starts its own), then the folder goes
  ( sleep 3; rm -rf "$fa_dir" ) < /dev/null > /dev/null 2>&1 &
}
