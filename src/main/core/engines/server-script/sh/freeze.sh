
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
