
# ----------------------------------------------------------------------------------------- pause --
# A pause stages its work so the part that matters most is done first: at once the session is
# frozen (its CPU stops) and its files are made durable; then its memory is written, in turn with
# the other dumps on this server (parallel dumps fight over the CPU and the disk), if it still fits
# the pause's deadline. A dump that runs past its time is ended; the session then pauses on disk if
# time remains, else stays frozen. Nothing here waits without a limit.

# Times the core does not plan: a disk pause after a dump given up (DISK_MS is kept back from the
# dump, pause-planner.ts's DISK_MS; one is still tried with DISK_MIN_MS left), and reporting the outcome.
DISK_MS=3000
DISK_MIN_MS=1500
FINISH_MS=300

# run_root_checkpoint NAME BUDGET_MS PAUSED: the fast dump, as root; its "stage", "note" and "written"
# (bytes written so far) lines go to this job's status, the rest to BYTES, DUMP_MS and WHY; returns
# its code (see root-checkpoint).
# Once the dump is written (stage stopped) the next session's dump may start: this one's fsync and
# publishing overlap it (the disk flushes while the next CRIU works).
run_root_checkpoint() {
  out=$STATE/root-$1.$$
  # shellcheck disable=SC2086
  { as_root root-checkpoint "$CID" "$ROOT" "$1" "$PID" "$2" "$3" $SYNC_PATHS; echo "rc $?"; } | while IFS= read -r line; do
    case $line in
      "stage stopped"*) stage stopped memory; release_turn ;;
      "stage "*) set -- $line; stage "$2" memory ;;
      "note "*) emit "$line" ;;
      "written "*) is_uint "${line#written }" && emit "$line" ;;
      *) printf '%s\n' "$line" >> "$out" ;;
    esac
  done
  rc=1 BYTES=0 DUMP_MS=0 WHY=
  while read -r k v; do case $k in rc) rc=$v ;; bytes) BYTES=$v ;; ms) DUMP_MS=$v ;; why) WHY=$v ;; esac; done < "$out"
  rm -f "$out"
  return "$rc"
}

# docker_checkpoint C NAME BUDGET_MS PAUSED: Docker's own checkpoint, ended after BUDGET_MS (with
# the runc and CRIU under it, where root can reach them). Where root can read its folders, the bytes
# it has written so far go to this job's status as "written" lines, as the fast path's do.
docker_checkpoint() {
  err_file=$STATE/checkpoint-$2.$$
  dc_root=
  [ -n "${CID:-}" ] && [ -n "${PID:-}" ] && [ -n "${ROOT:-}" ] && can_root 2>/dev/null && dc_root=1
  now_ms; t=$NOW
  docker checkpoint create "$1" "$2" > "$err_file" 2>&1 &
  client=$!
  dc_sampler=
  if [ -n "$dc_root" ]; then
    { as_root root-sample-docker-dump "$CID" "$ROOT" "$2" "$PID" "$client" $(( t + $3 + 1000 )) | while IFS= read -r line; do
        case $line in "written "*) is_uint "${line#written }" && emit "$line" ;; esac
      done; } &
    dc_sampler=$!
  fi
  late=
  while kill -0 "$client" 2>/dev/null; do
    now_ms
    if [ $(( NOW - t )) -ge "$3" ]; then
      late=1; kill -KILL "$client" 2>/dev/null
      if can_root 2>/dev/null; then as_root root-end-runc "$CID" checkpoint "$PID" "$([ "$4" = 1 ] && echo frozen-yes || echo frozen-no)"; fi
      break
    fi
    sleep 0.05
  done
  wait "$client"
  rc=$?
  now_ms; DUMP_MS=$(( NOW - t ))
  # the sampler ends by itself within a sample of the client's end: its last figure comes before
  # the dump's own; waited for 1.5 s at most
  if [ -n "$dc_sampler" ]; then
    n=0
    while kill -0 "$dc_sampler" 2>/dev/null && [ $n -lt 30 ]; do sleep 0.05; n=$(( n + 1 )); done
    kill "$dc_sampler" 2>/dev/null
    wait "$dc_sampler" 2>/dev/null
  fi
  err=$(head -n 1 "$err_file"); rm -f "$err_file"
  [ -n "$late" ] && return 124
  return $rc
}

# checkpoint_memory C NAME METHOD BUDGET_MS PAUSED: stops the container with its memory in
# checkpoint NAME. Never trusts an engine's answer alone: success is a complete checkpoint and a
# stopped container. Sets LAYOUT and BYTES, or REASON and CODE.
checkpoint_memory() {
  c=$1 name=$2 method=$3 budget=$4 paused=$5
  now_ms; cm_t0=$NOW
  if [ "$method" = fast ]; then
    run_root_checkpoint "$name" "$budget" "$paused"; CODE=$?
    if [ $CODE = 0 ]; then LAYOUT='split'; emit "metric dump $DUMP_MS $BYTES"; return 0; fi
    REASON=${WHY:-the fast checkpoint failed (code $CODE)}
    # out of time, out of space, or what this server's CRIU cannot dump: Docker's own path would do no better
    { [ $CODE = 124 ] || [ $CODE = 28 ] || [ $CODE = 29 ]; } && return 1
    inspect_container "$c"
    # the dump failed before the kill: processes were resumed, so Docker's own path can still try
    { [ "$STATUS" = running ] || [ "$STATUS" = paused ]; } || { REASON="$REASON, and the container is $STATUS"; return 1; }
    now_ms; budget=$(( budget - (NOW - cm_t0) ))
    [ "$budget" -gt 1000 ] || return 1
    emit "note $REASON; trying Docker's own checkpoint"
  fi
  watcher=
  if can_root 2>/dev/null; then
    n=$(as_root root-end-execs "$PID")
    [ "${n:-0}" != 0 ] && emit "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
    # Docker pauses the task before it checkpoints, as ctr does (see watch_exec_freeze)
    freeze_watch_start "$STATE/watch-$name.$$" "$PID"
  fi
  docker_checkpoint "$c" "$name" "$budget" "$paused"; CODE=$?
  freeze_watch_stop "a command started through exec froze with the checkpoint's pause; Berth thawed it so the checkpoint could go on"
  inspect_container "$c"
  listed=
  docker checkpoint ls "$c" 2>/dev/null | awk 'NR > 1 {print $1}' | grep -qx "$name" && listed=1
  if [ $CODE != 124 ] && [ "$STATUS" != running ] && [ "$STATUS" != paused ] && [ -n "$listed" ]; then
    stage stopped memory
    release_turn
    [ -n "$err" ] && [ "$err" != "$name" ] && emit "note docker answered: $err (checkpoint verified)"
    LAYOUT=docker; BYTES=0
    if can_root 2>/dev/null; then
      info=$(as_root root-checkpoint-info "$CID" "$ROOT" "$name") || { REASON="the checkpoint is incomplete: $info"; return 1; }
      BYTES=$(echo "$info" | awk '/^bytes / {print $2}')
      as_root root-fsync-checkpoint "$CID" "$ROOT" "$name"
    fi
    emit "metric dump $DUMP_MS ${BYTES:-0}"
    return 0
  fi
  if [ $CODE = 124 ]; then REASON="the memory checkpoint did not finish within $(( budget / 1000 )) s; Berth ended it"
  else
    # Docker's error only says "criu failed" and where CRIU's log is: the log says why
    log_path=$(printf '%s\n' "$err" | sed -n 's|.*path= *\(/[^ :]*/criu-dump\.log\).*|\1|p')
    why=
    [ -n "$log_path" ] && can_root 2>/dev/null && why=$(as_root root-dump-why "$log_path" 2>/dev/null)
    REASON="the checkpoint failed: ${why:-${err:-docker exit $CODE}}"
  fi
  # a half-made checkpoint is never left to be restored
  docker checkpoint rm "$c" "$name" >/dev/null 2>&1
  return 1
}

# anon_bytes PID: the anonymous memory of PID's container (what a dump writes), from its memory cgroup
anon_bytes() {
  ANON=0 ab_f=
  while IFS=: read -r _ ctl path; do
    case ",$ctl," in
      *,memory,*) ab_f=/sys/fs/cgroup/memory$path/memory.stat; ab_key=total_rss ;;
      ,,) [ -n "$ab_f" ] || { ab_f=/sys/fs/cgroup$path/memory.stat; ab_key=anon; } ;;
    esac
  done < "/proc/$1/cgroup" 2>/dev/null
  [ -r "$ab_f" ] || return 1
  while read -r k v; do [ "$k" = "$ab_key" ] && { ANON=$v; return 0; }; done < "$ab_f"
  return 1
}

# The order of this server's memory dumps: one ticket file per pause in $STATE/queue, named by the
# turn the core gave it; a pause dumps when its ticket is among the first SLOTS (the core's plan:
# how many dumps this server runs at once) whose owners still run.
wait_turn() {
  TICKET=
  [ -n "$turn" ] || return 0
  mkdir -p "$STATE/queue" || return 0
  TICKET=$STATE/queue/$turn
  read -r boot < /proc/sys/kernel/random/boot_id
  printf '%s %s\n' "$$" "$boot" > "$TICKET"
  while :; do
    ahead=0
    for f in "$STATE"/queue/*; do
      [ -f "$f" ] || continue
      [ "$f" = "$TICKET" ] && return 0
      read -r owner owner_boot < "$f" 2>/dev/null
      if [ "${owner_boot:-}" != "$boot" ] || ! kill -0 "${owner:-0}" 2>/dev/null; then rm -f "$f"; continue; fi
      ahead=$((ahead + 1))
      [ "$ahead" -ge "$slots" ] && break
    done
    elapsed; [ "$ELAPSED" -ge "$1" ] && return 1
    sleep 0.05
  done
}
release_turn() { [ -n "${TICKET:-}" ] && rm -f "$TICKET"; TICKET=; }

# freeze_session: docker pause (the freezer can miss a busy process tree: a few tries, each ended
# after 10 s at most), with the freeze watcher on (an exec starting as the container freezes would
# hold it for good). A session frozen already by the server's freeze-all only gets the watcher.
freeze_session() {
  if [ -n "${PID:-}" ] && can_root 2>/dev/null; then freeze_watch_start "$STATE/watch-$name.$$" "$PID" refreeze; fi
  i=0
  while [ "$STATUS" != paused ]; do
    elapsed; fs_ms=$(( deadline - ELAPSED )); [ $fs_ms -gt 10000 ] && fs_ms=10000; [ $fs_ms -lt 1000 ] && fs_ms=1000
    docker_pause_within "$fs_ms" "$STATE/pause-$name.$$" "$c"; fs_rc=$?
    err=$(head -n 1 "$STATE/pause-$name.$$.err" 2>/dev/null); rm -f "$STATE/pause-$name.$$" "$STATE/pause-$name.$$.err"
    [ $fs_rc = 0 ] && break
    [ $fs_rc = 124 ] && fail "docker pause did not answer within $(secs "$fs_ms") s"
    i=$((i + 1)); [ $i -ge 5 ] && fail "docker pause failed: $err"
    sleep 0.2; inspect_container "$c"
  done
  STATUS=paused
  now_ms; FROZEN_AT=$NOW
}
# watch_after_freeze: an exec under way as Docker froze the container shows in its cgroup within
# moments: watch a second and a half at least (Docker starts no new exec in a paused container)
watch_after_freeze() {
  [ -n "${watcher:-}" ] || return 0
  now_ms; left=$(( FROZEN_AT + 1500 - NOW ))
  [ $left -gt 0 ] && sleep_ms $left
  freeze_watch_stop "a command started through exec froze with the session; Berth let it start and froze the session again"
}

# commit_disk: the committed disk snapshot (IMAGE); without it the session still resumes from its
# own (synced) files
commit_disk() {
  size=0
  [ -n "$image" ] || return 0
  if docker commit --pause=false "$c" "$image" >/dev/null 2>"$STATE/commit-$name.err"; then
    size=$(docker image inspect -f '{{.Size}}' "$image" 2>/dev/null || echo 0)
  else
    emit "note the disk snapshot failed: $(head -n 1 "$STATE/commit-$name.err"); the session's own files are kept"
    image=
  fi
  rm -f "$STATE/commit-$name.err"
}

# pause_disk: stops the session (its processes end; resume cold-boots from its files), commits it if
# time allows, and makes its files durable
pause_disk() {
  [ "$STATUS" = paused ] && docker unpause "$c" >/dev/null 2>&1
  elapsed; left=$(( deadline - ELAPSED ))
  grace=$(( left / 3000 )); [ $grace -gt 10 ] && grace=10
  if [ "$STATUS" != exited ]; then err=$(docker stop -t "$grace" "$c" 2>&1 >/dev/null) || fail "docker stop failed: $(echo "$err" | head -n 1)"; fi
  STATUS=exited
  stage stopped disk
  elapsed
  if [ $(( deadline - ELAPSED )) -gt 2000 ]; then commit_disk; else image='' size=0; fi
  sync_paths "$ROOT" $SYNC_PATHS
  stage durable
  emit "result {\"mode\":\"disk\",\"image\":$(json_str "$image"),\"bytes\":${size:-0},\"fallback\":$(json_str "$fallback")$(memory_failed)}"
}

# stay_frozen: the session keeps its memory frozen on this server, with its files durable; its memory
# checkpoint is written later (Berth completes it on its next contact, or after wake)
stay_frozen() {
  inspect_container "$c"
  [ "$STATUS" = running ] && { docker pause "$c" >/dev/null 2>&1 || fail "docker pause failed"; }
  emit "result {\"mode\":\"frozen\",\"pending\":\"memory\",\"bytes\":0,\"fallback\":$(json_str "$fallback")$(memory_failed)}"
}

# memory_failed: the result's mark that a memory dump was tried and failed (the core tests the server
# again, and writes no frozen memory that would fail the same way)
memory_failed() { [ -n "${DUMP_FAILED:-}" ] && printf ',"memoryFailed":true'; return 0; }

# after_memory_failed late|broken: the dump did not happen (REASON): a durable disk pause if there is
# time and the memory path failed (on_broken=disk: a pause; a completion keeps the frozen memory),
# or if the pause asked for disk over frozen, else the session stays frozen
after_memory_failed() {
  fallback=$REASON
  [ "$1" = broken ] && DUMP_FAILED=1
  emit "fallback $fallback"
  inspect_container "$c"
  elapsed
  if [ "$STATUS" = exited ]; then pause_disk; return; fi
  if [ "$1" = broken ] && [ "$on_broken" = disk ] && [ $(( deadline - ELAPSED )) -ge $DISK_MIN_MS ]; then pause_disk; return; fi
  if [ "$overflow" = disk ] && [ $(( deadline - ELAPSED )) -ge $DISK_MIN_MS ]; then pause_disk; return; fi
  stay_frozen
}

# dump_in_turn METHOD: the second stage of a memory pause, for a frozen session: its dump, when its
# turn comes and if it still fits
dump_in_turn() {
  # the planner's estimate, made again from the memory the session holds now (the meter's figure
  # the plan rests on may be old, or missing)
  if [ "$rate" -gt 0 ] && anon_bytes "$PID"; then estimate=$(( overhead + ANON / 1048576 * 1000 / rate )); fi
  start_by=$(( deadline - estimate - FINISH_MS ))
  [ "$estimate" -gt 0 ] || start_by=$(( deadline - FINISH_MS - DISK_MS ))
  if ! wait_turn "$start_by"; then
    REASON="its memory checkpoint could not start within the pause's $(( deadline / 1000 )) s: other sessions on this server were writing theirs"
    after_memory_failed late; return
  fi
  elapsed; left=$(( deadline - ELAPSED - FINISH_MS ))
  # the planner's estimate, checked against the memory the session holds now
  if [ "$rate" -gt 0 ] && anon_bytes "$PID"; then
    need=$(( overhead + ANON / 1048576 * 1000 / rate ))
    if [ $need -gt $left ]; then
      release_turn
      REASON="its memory ($(( ANON / 1048576 )) MiB) needs about $(secs "$need") s to write and $(secs "$left") s were left"
      after_memory_failed late; return
    fi
  fi
  # what the deadline leaves the dump: all of it when the session would stay frozen anyway, less
  # the time of a disk pause when that is what follows a dump given up
  room=$left
  [ "$on_broken" = disk ] && room=$(( left - DISK_MS ))
  [ "$room" -lt 500 ] && room=$left
  b=$budget
  { [ "$b" -le 0 ] || [ "$b" -gt "$room" ]; } && b=$room
  # the dump's own watcher takes over from the freeze's (an exec caught by Docker's freeze shows
  # up during the checkpoint just as well, and a pause must not wait for it here)
  freeze_watch_stop "a command started through exec froze with the session; Berth let it start and froze the session again"
  # what the dump is about to write (its anonymous memory): the core shows the bytes written against it
  if anon_bytes "$PID"; then emit "metric expect $ANON"; fi
  if checkpoint_memory "$c" "$name" "$1" "$b" 1; then
    release_turn
    [ "$LAYOUT" = split ] || sync_paths "$ROOT" $SYNC_PATHS
    stage durable
    emit "result {\"mode\":\"memory\",\"checkpoint\":\"$name\",\"layout\":\"$LAYOUT\",\"bytes\":${BYTES:-0}}"
    return 0
  fi
  release_turn
  after_memory_failed broken
}

# pause CONTAINER SNAPSHOT MODE METHOD IMAGE [KEY=VALUE...] [-- CID PID UPPER [VOLUME...]]
#   MODE memory|frozen|disk; METHOD fast|docker (memory only); IMAGE the tag a disk snapshot gets.
#   deadline=MS  the pause is over by then (from the job's start): durable, or given up (frozen)
#   budget=MS    the longest its memory dump may take (0: what the deadline leaves)
#   estimate=MS rate=MIBPS overhead=MS  the planner's estimate of the dump, and what it rests on
#   turn=T       its place in this server's order of dumps
#   slots=K      how many dumps this server runs at once (1 unless the core says)
#   overflow=frozen|disk  what a session whose memory does not fit becomes
#   frozen=1     the core froze it already, with the others of this server, and made its files
#                durable (freeze-all, given CID PID UPPER); ended=N exec sessions it ended first
# Stages: begin, frozen (stopped, files durable; the core answers), stopped (memory: dumped; disk:
# stopped), durable. The core may pass what it already knows (CID PID UPPER and the volume paths) to
# spare this script the docker CLI calls (100-200 ms each) on the fast path.
cmd_pause() {
  shift; c=$1 name=$2 mode=$3 method=$4 image=$5; shift 5
  deadline=600000 budget=0 estimate=0 rate=0 overhead=0 turn='' slots=1 overflow=disk frozen="" execs_ended=0
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    v=${1#*=}
    case $1 in
      deadline=*) is_uint "$v" && deadline=$v ;;
      budget=*) is_uint "$v" && budget=$v ;;
      estimate=*) is_uint "$v" && estimate=$v ;;
      rate=*) is_uint "$v" && rate=$v ;;
      overhead=*) is_uint "$v" && overhead=$v ;;
      turn=*) case $v in *[!0-9]*) ;; *) turn=$v ;; esac ;;
      slots=*) is_uint "$v" && [ "$v" -ge 1 ] && slots=$v ;;
      overflow=frozen) overflow=frozen ;;
      overflow=disk) overflow=disk ;;
      frozen=1) frozen=1 ;;
      ended=*) is_uint "$v" && execs_ended=$v ;;
      *) fail "unknown pause option: $1" ;;
    esac
    shift
  done
  [ "${1:-}" = -- ] && shift
  # a lid-close pause keeps a session whose dump was given up frozen (its memory is still whole in
  # RAM); a pause of one session goes to disk then, as its deadline asks
  on_broken=$overflow
  if [ $# -ge 3 ]; then
    CID=$1 PID=$2 UPPER=$3 STATUS=running; shift 3
    # (Docker records it paused: freeze_session only starts the watcher)
    [ -n "$frozen" ] && STATUS=paused
    ROOT=${UPPER%/overlay2/*}
    [ "$ROOT" != "$UPPER" ] || ROOT=$(docker info -f '{{.DockerRootDir}}')
    SYNC_PATHS="$UPPER $*"
  else
    frozen=''
    inspect_container "$c" || fail "container $c not found"
    SYNC_PATHS="$UPPER $(mount_sources "$c" | tr '\n' ' ')"
  fi
  stage begin
  [ "$STATUS" = running ] || [ "$STATUS" = paused ] || fail "the container is $STATUS, not running"
  LAYOUT='' BYTES=0 REASON='' fallback='' watcher=''
  if [ "$mode" = disk ]; then pause_disk; return; fi
  # exec sessions (terminal clients) end before the freeze: a frozen process cannot die
  if [ -n "$frozen" ]; then n=$execs_ended
  elif [ "$mode" = memory ] && can_root 2>/dev/null; then n=$(as_root root-end-execs "$PID")
  fi
  [ "${n:-0}" != 0 ] && emit "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
  if [ -n "$frozen" ]; then
    # frozen by freeze-all, its files durable, its watchers on for seconds yet: the core hears so
    # first (where this user is not root, the watcher's start below costs a docker CLI call, up to
    # a second on a loaded server, which the lid-close deadline has no room for)
    stage frozen
    freeze_session
  else
    freeze_session
    sync_paths "$ROOT" $SYNC_PATHS
    stage frozen
  fi
  if [ "$mode" = memory ]; then dump_in_turn "$method"; return; fi
  # frozen: the memory stays on this server; the disk snapshot is what is durable
  commit_disk
  sync_paths "$ROOT" $SYNC_PATHS
  watch_after_freeze
  stage durable
  emit "result {\"mode\":\"frozen\",\"image\":$(json_str "$image"),\"bytes\":${size:-0},\"fallback\":$(json_str "$fallback")}"
}

# complete CONTAINER SNAPSHOT METHOD [KEY=VALUE...]: the memory checkpoint of a session left frozen
# by a pause whose window closed first (same options as pause)
cmd_complete() {
  shift; c=$1 name=$2 method=$3; shift 3
  deadline=120000 budget=0 estimate=0 rate=0 overhead=0 turn='' slots=1 overflow=frozen on_broken=frozen image=''
  for o in "$@"; do
    v=${o#*=}
    case $o in
      deadline=*) is_uint "$v" && deadline=$v ;;
      budget=*) is_uint "$v" && budget=$v ;;
      estimate=*) is_uint "$v" && estimate=$v ;;
      rate=*) is_uint "$v" && rate=$v ;;
      overhead=*) is_uint "$v" && overhead=$v ;;
      turn=*) case $v in *[!0-9]*) ;; *) turn=$v ;; esac ;;
      slots=*) is_uint "$v" && [ "$v" -ge 1 ] && slots=$v ;;
    esac
  done
  inspect_container "$c" || fail "container $c not found"
  SYNC_PATHS="$UPPER $(mount_sources "$c" | tr '\n' ' ')"
  stage begin
  [ "$STATUS" = paused ] || fail "the container is $STATUS, not frozen"
  LAYOUT='' BYTES=0 REASON='' fallback='' watcher='' FROZEN_AT=0
  dump_in_turn "$method"
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
    # no lazy restore's config may be in place while this restore's CRIU reads it (lazy.sh): a
    # restore in full would hand its memory to another session's page server
    lazy_hold_off 30000 || fail "a lazy resume on this server held CRIU's configuration for longer than 30 s; still paused with its memory"
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
    exec 8>&-
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

