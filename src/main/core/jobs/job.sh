# berth-job: detached jobs inside a session (run as `sh -c TEXT berth-job VERB ARGS...` through one
# exec each). A job runs under a small supervisor that leaves the exec at once (setsid, stdio on
# files), so it lives in the container's own process tree: a memory pause, a move or a fork carries
# it like any other process, where an exec's socket could not be checkpointed. Its output goes to a
# bounded log that rotates once (log, log.1), each line stamped with the second it was written; its
# exit code is kept in rc. Files: $D/ID/{cmd,pid,pgid,started,ended,rc,log,log.1,log.gen}.
#   prepare                           the jobs' folder, writable by every user (run as root)
#   start ID DISPLAY CMD [ARGS...]   prints "started ID"
#   list                              one line a job: ID STATE RC STARTED ENDED COMMAND (tab-separated)
#   read ID GEN OFFSET MAX            "state S", "rc N", "gen G", "file F", "offset O", then "--" and
#                                     at most MAX bytes of the log from OFFSET (GEN: its rotation)
#   kill ID SIGNAL                    signals the job's process group; "signalled 1" or "state S"
D=${BERTH_JOBS_DIR:-/tmp/.berth-jobs}
LOG_BYTES=${BERTH_JOB_LOG_BYTES:-4194304}

# id_ok ID: a job id as the core makes them (j and up to 15 lowercase letters and digits)
id_ok() { case $1 in j*) ;; *) return 1 ;; esac; case $1 in *[!a-z0-9]*) return 1 ;; esac; [ ${#1} -le 16 ]; }
num_ok() { case $1 in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
die() { echo "error $2"; exit "$1"; }

# The supervisor, run by setsid as its own session: the command in a session of its own (its
# process group is what kill signals), its output through awk into the log, then rc and ended.
# The supervisor ignores hang-ups (the exec that started it ends at once).
SUPERVISE='
j=$1 limit=$2; shift 2
trap "" HUP
echo $$ > "$j/pid"
# mawk fills its whole input buffer before it reads a line, unless told it is interactive
iopt=
case $(awk -W version 2>&1 | head -n 1) in *mawk*) iopt="-W interactive" ;; esac
{
  setsid sh -c '"'"'echo $$ > "$0/pgid"; exec "$@"'"'"' "$j" "$@"
  echo $? > "$j/rc.tmp"
} < /dev/null 2>&1 | awk $iopt -v f="$j/log" -v limit="$limit" -v gf="$j/log.gen" '"'"'
  function now() { srand(); return srand() }
  BEGIN { n = 0; gen = 0 }
  {
    line = now() " " $0
    if (n > 0 && n + length(line) + 1 > limit) {
      close(f); system("mv -f \"" f "\" \"" f ".1\"")
      gen++; print gen > gf; close(gf); n = 0
    }
    print line >> f; fflush(f); n += length(line) + 1
  }'"'"'
date +%s > "$j/ended"
mv -f "$j/rc.tmp" "$j/rc" 2>/dev/null || echo 255 > "$j/rc"
'

job_start() {
  id=$1 display=$2; shift 2
  id_ok "$id" || die 2 "not a job id: $id"
  [ $# -gt 0 ] || die 2 "no command"
  command -v setsid >/dev/null 2>&1 || die 3 "this session's image has no setsid, which detached jobs need"
  command -v awk >/dev/null 2>&1 || die 3 "this session's image has no awk, which detached jobs need"
  [ -d "$D" ] || job_prepare > /dev/null
  mkdir "$D/$id" 2>/dev/null || die 3 "cannot make $D/$id (run by $(id -un 2>/dev/null || id -u))"
  j=$D/$id
  chmod 700 "$j" 2>/dev/null
  { printf '%s' "$display" | tr '\n\t' '  ' | head -c 2000; echo; } > "$j/cmd"
  date +%s > "$j/started"
  : > "$j/log"
  BERTH_JOB=$id setsid sh -c "$SUPERVISE" berth-supervisor "$j" "$LOG_BYTES" "$@" < /dev/null > /dev/null 2>&1 &
  # started once the supervisor has written its pid (a second at most on a loaded machine)
  i=0
  while [ ! -s "$j/pid" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
  echo "started $id"
}

# job_prepare: the jobs' folder, which every user of the session may add a job to (like /tmp itself:
# sticky, each job's own folder is its user's alone). Run as root before a job starts: an image
# whose /tmp only root may write still runs a remoteUser's jobs.
job_prepare() {
  mkdir -p "$D" 2>/dev/null
  chmod 1777 "$D" 2>/dev/null
  [ -d "$D" ] || die 3 "cannot make $D"
  echo "prepared 1"
}

# job_state J: STATE (running, exited, lost) and RC of the job in folder J
job_state() {
  STATE=lost RC=
  if [ -f "$1/rc" ]; then STATE=exited; read -r RC < "$1/rc"; num_ok "$RC" || RC=255; return; fi
  pid=; read -r pid 2>/dev/null < "$1/pid"
  # a supervisor that still runs (a pid taken over by another process after a cold boot is not it)
  if num_ok "$pid" && tr '\0' '\n' < "/proc/$pid/cmdline" 2>/dev/null | grep -qx "$1"; then STATE=running; fi
}

job_list() {
  [ -d "$D" ] || return 0
  for j in "$D"/j*; do
    [ -d "$j" ] || continue
    id=${j##*/}; id_ok "$id" || continue
    job_state "$j"
    started=; ended=
    read -r started 2>/dev/null < "$j/started"; read -r ended 2>/dev/null < "$j/ended"
    cmd=$(head -n 1 "$j/cmd" 2>/dev/null | tr '\t' ' ')
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$STATE" "$RC" "$started" "$ended" "$cmd"
  done
}

job_read() {
  id=$1 gen=$2 off=$3 max=$4
  id_ok "$id" && num_ok "$gen" && num_ok "$off" && num_ok "$max" || die 2 "bad arguments"
  j=$D/$id
  [ -d "$j" ] || die 4 "no job $id in this session"
  job_state "$j"
  cur=0; read -r cur 2>/dev/null < "$j/log.gen"; num_ok "$cur" || cur=0
  f=log
  if [ "$gen" -lt "$cur" ]; then
    # rotated since the last read: the rest of the previous file when it is the one read, else
    # from the start of the current file (what rotated away twice is gone)
    if [ "$gen" -eq $((cur - 1)) ] && [ -f "$j/log.1" ]; then f=log.1; else off=0; gen=$cur; fi
  elif [ "$gen" -gt "$cur" ]; then off=0; gen=$cur
  fi
  size=$(wc -c < "$j/$f" 2>/dev/null || echo 0)
  [ "$off" -le "$size" ] || off=0
  echo "state $STATE"; echo "rc $RC"; echo "gen $gen"; echo "current $cur"; echo "file $f"; echo "offset $off"; echo "size $size"
  echo "--"
  tail -c +$((off + 1)) "$j/$f" 2>/dev/null | head -c "$max"
}

job_kill() {
  id=$1 sig=$2
  id_ok "$id" || die 2 "not a job id: $id"
  case $sig in HUP|INT|QUIT|KILL|TERM|USR1|USR2|STOP|CONT) ;; *) die 2 "not a signal: $sig" ;; esac
  j=$D/$id
  [ -d "$j" ] || die 4 "no job $id in this session"
  job_state "$j"
  [ "$STATE" = running ] || { echo "state $STATE"; return 0; }
  pgid=; read -r pgid 2>/dev/null < "$j/pgid"
  num_ok "$pgid" && [ "$pgid" -gt 1 ] || die 5 "job $id has not started its command yet"
  kill -s "$sig" -- "-$pgid" 2>/dev/null || die 5 "could not signal job $id"
  echo "signalled 1"
}

verb=${1:-}; [ $# -gt 0 ] && shift
case $verb in
  prepare) job_prepare ;;
  start) job_start "$@" ;;
  list) job_list ;;
  read) job_read "$@" ;;
  kill) job_kill "$@" ;;
  *) die 2 "unknown verb: $verb" ;;
esac
