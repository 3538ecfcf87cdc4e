
# ----------------------------------------------------------------------------------- checkpoints --
# Layout (Docker's own): ROOT/containers/CID/checkpoints/NAME, restorable by docker start --checkpoint.
# The fast layout keeps the memory pages in ROOT/containers/CID/berth/pages-NAME, linked from the
# checkpoint folder, so Docker copies only the small images through containerd when it restores.
UP=../../../../../../../../../../../../../../../..

# What root commands accept from their caller: a container id (64 hex digits), a checkpoint name
# (as the core makes them), a data root (an absolute path without ..).
container_id_ok() { case $1 in *[!0-9a-f]*) return 1 ;; esac; [ ${#1} = 64 ]; }
checkpoint_name_ok() { case $1 in ''|*[!A-Za-z0-9._-]*|.*) return 1 ;; *) return 0 ;; esac; }
data_root_ok() { case $1 in /*) ;; *) return 1 ;; esac; case $1/ in */../*) return 1 ;; esac; [ -d "$1/containers" ]; }
checkpoint_args_ok() {
  container_id_ok "$1" || { log "not a container id: $1"; return 1; }
  data_root_ok "$2" || { log "not Docker's data root: $2"; return 1; }
  checkpoint_name_ok "$3" || { log "not a checkpoint name: $3"; return 1; }
}

# end_exec_sessions INIT_PID: ends the processes of the container that do not descend from its
# init: `docker exec` sessions (terminal clients such as `tmux attach`, commands run through exec).
# CRIU dumps only init's tree, so an attached tmux client makes the dump fail ("external socket")
# and any other exec process would be silently lost; views (tmux servers) are in the tree and stay.
# Read from the container's cgroup with shell builtins only (a fork costs 20 ms on small VMs).
end_exec_sessions() {
  init=$1; procs=
  while IFS=: read -r _ ctl path; do
    case ",$ctl," in
      *,pids,*|*,freezer,*|*,memory,*) f=/sys/fs/cgroup/${ctl%%,*}$path/cgroup.procs ;;
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
cmd_root_end_execs() { shift; is_uint "$1" || return 2; end_exec_sessions "$1"; }

# checkpoint_processes SHIM ID: the pids of the runc processes checkpointing container ID (started
# by its shim for containerd's checkpoint), with CRIU under them
checkpoint_processes() {
  cp_found=
  for cp_st in /proc/[0-9]*/status; do
    cp_pid=${cp_st#/proc/}; cp_pid=${cp_pid%/status}
    ppid_of "$cp_pid" || continue
    [ "$PP" = "$1" ] || continue
    case $(tr '\0' ' ' < "/proc/$cp_pid/cmdline" 2>/dev/null) in *" checkpoint "*"$2"*) cp_found="$cp_found $cp_pid" ;; esac
  done
  echo "$cp_found"
}
# end_checkpoint CLIENT SHIM ID: ends a checkpoint that ran past its time: its client (ctr), and the
# runc and CRIU that containerd's shim started for it (a killed client leaves those running, the
# container frozen, and every later call on it waiting behind them); waits until they are gone.
end_checkpoint() {
  kill -KILL "$1" 2>/dev/null
  ec_tree=$(checkpoint_processes "$2" "$3")
  # shellcheck disable=SC2086
  [ -n "$ec_tree" ] && kill_tree KILL $ec_tree
  i=0
  while [ $i -lt 40 ]; do
    ec_left=
    for p in $ec_tree; do kill -0 "$p" 2>/dev/null && ec_left=1; done
    [ -z "$ec_left" ] && break
    sleep 0.05; i=$((i + 1))
  done
  wait "$1" 2>/dev/null
}

# dump_failure_why LOG: why CRIU's dump failed, from its log: the first error that stopped it (CRIU
# logs a harmless RLIMIT_NOFILE error first when it cannot raise its own limit), or the cause in
# words when it is one Berth knows.
dump_failure_why() {
  if dump_hit_socket_option "$1"; then
    echo "this server's CRIU cannot save the session's network sockets (a server or a connection it holds) on Linux $(uname -r): from 6.16 the kernel refuses a socket option that CRIU before 4.2 reads"
    return 0
  fi
  if dump_hit_rlimit "$1"; then
    echo "this server's CRIU cannot save processes that run as a user other than root (CRIU lacks the CAP_SYS_RESOURCE capability here, so the kernel refuses it their resource limits)"
    return 0
  fi
  grep -E 'Error|error' "$1" 2>/dev/null | grep -v 'RLIMIT_NOFILE' | head -n 1 | cut -c1-200
}
# dump_unsupported LOG: the dump failed on something no other way of dumping avoids on this server
dump_unsupported() { dump_hit_socket_option "$1" || dump_hit_rlimit "$1"; }
# dump_hit_socket_option LOG: CRIU before 4.2 read a socket option Linux 6.16 and later refuse
dump_hit_socket_option() { grep -q "Can't get 1:16 opt: Operation not supported" "$1" 2>/dev/null; }
# dump_hit_rlimit LOG: the kernel refused CRIU another user's resource limits (no CAP_SYS_RESOURCE)
dump_hit_rlimit() { grep -q "Can't get rlimit [0-9]*: Operation not permitted" "$1" 2>/dev/null; }
# root-dump-why LOG: why the dump whose CRIU log is LOG failed (Docker names the log in its error,
# in containerd's state, which only root reads); nothing when LOG is not such a log
cmd_root_dump_why() {
  shift
  case $1 in
    /*/criu-dump.log) ;;
    *) return 2 ;;
  esac
  case $1 in *[!A-Za-z0-9/._-]*|*/../*) return 2 ;; esac
  [ -f "$1" ] || return 0
  dump_failure_why "$1"
}

# sample_dump CLIENT DIR DEADLINE_MS: while the dump's client runs, every 250 ms, "written BYTES": the
# size of the images folder DIR that CRIU is writing (the progress a pause shows). A process of its
# own that only reads the folder: it never holds up the dump or its deadline; it ends by itself once
# the client is gone or DEADLINE_MS (uptime) has passed, and its caller ends it at once when the
# dump ends (dump_sampler_stop). Prints only changed figures.
sample_dump() {
  sd_last=
  while :; do
    sleep 0.25
    kill -0 "$1" 2>/dev/null || return 0
    now_ms; [ "$NOW" -lt "$3" ] || return 0
    sd_b=$(du -sb "$2" 2>/dev/null); sd_b=${sd_b%%[!0-9]*}
    if [ -n "$sd_b" ] && [ "$sd_b" != "$sd_last" ]; then echo "written $sd_b"; sd_last=$sd_b; fi
  done
}
dump_sampler_stop() { [ -n "${sampler:-}" ] && kill "$sampler" 2>/dev/null; sampler=; return 0; }

# runc_image_path SHIM CID: IMAGES, the folder the runc checkpointing CID writes CRIU's images to
# (Docker's own checkpoint: a temporary folder containerd made), read from the command line of the
# shim's child that runs `runc ... checkpoint --image-path DIR ... CID`. containerd wrote that line,
# not the session; the folder is still only taken when it is a plain absolute path.
runc_image_path() {
  IMAGES=
  for rp in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
    rp_dir=$(tr '\0' '\n' < "/proc/$rp/cmdline" 2>/dev/null | awk -v id="$2" '
      prev == "--image-path" { dir = $0 } $0 == "checkpoint" { cp = 1 } { prev = $0; last = $0 }
      END { if (cp && last == id && dir != "") print dir }')
    case $rp_dir in /*) ;; *) continue ;; esac
    case $rp_dir in *[!A-Za-z0-9/._-]*|*..*) continue ;; esac
    IMAGES=$rp_dir; return 0
  done
  return 1
}

# root-sample-docker-dump CID ROOT NAME PID CLIENT DEADLINE_MS: Docker's own checkpoint's
# "written BYTES" (the fast path's are sample_dump's): every 250 ms while CLIENT (the docker CLI
# that asked for it) runs, what the dump has written so far: CRIU's images in the folder runc writes
# them to, then Docker's copy of them into checkpoint NAME, the larger of the two. It only reads those
# folders, so it never holds up the dump; it ends by itself once CLIENT is gone or DEADLINE_MS
# (uptime) has passed. Prints only figures larger than the last.
cmd_root_sample_docker_dump() {
  shift; id=$1 root=$2 name=$3 pid=$4 client=$5 until=$6
  checkpoint_args_ok "$id" "$root" "$name" || return 2
  is_uint "$pid" && is_uint "$client" && is_uint "$until" || return 2
  ppid_of "$pid" || return 0
  sd_shim=$PP sd_final=$root/containers/$id/checkpoints/$name sd_last=0 IMAGES=
  while :; do
    sleep 0.25
    kill -0 "$client" 2>/dev/null || return 0
    now_ms; [ "$NOW" -lt "$until" ] || return 0
    [ -n "$IMAGES" ] || runc_image_path "$sd_shim" "$id"
    sd_b=0
    for sd_d in $IMAGES "$sd_final"; do
      [ -d "$sd_d" ] || continue
      sd_n=$(du -sb "$sd_d" 2>/dev/null); sd_n=${sd_n%%[!0-9]*}
      [ "${sd_n:-0}" -gt "$sd_b" ] && sd_b=$sd_n
    done
    if [ "$sd_b" -gt "$sd_last" ]; then echo "written $sd_b"; sd_last=$sd_b; fi
  done
}

# root-checkpoint CID ROOT NAME PID BUDGET_MS PAUSED [SYNC_PATH...]: a CRIU dump through containerd's
# own client, which writes the images straight to disk (Docker's API copies them through
# containerd's content store: 10x slower and never fsync'd). A dump still running after BUDGET_MS
# is ended, with everything it started. PAUSED=1: Docker records the container paused (the pause
# froze it first); a dump that fails leaves the cgroup frozen again, as Docker expects, else thawed.
# Prints "written BYTES" while CRIU writes (sample_dump), "stage stopped" once the container is
# stopped, then makes everything durable and prints
# "bytes N" and "ms N" (the dump's time). Fails with "why TEXT" and a code: 3 exists, 4 no ctr,
# 5 the dump failed, 28 no space left, 29 CRIU cannot dump this session here (Docker's path would fail
# alike), 124 out of time, 6-8 the files could not be made durable.
cmd_root_checkpoint() {
  shift; id=$1 root=$2 name=$3 pid=$4 budget=$5 paused=$6; shift 6
  checkpoint_args_ok "$id" "$root" "$name" || return 2
  is_uint "$pid" && is_uint "$budget" || return 2
  [ "$budget" -gt 0 ] || budget=600000
  c=$root/containers/$id
  cpd=$c/checkpoints/$name stage=$c/berth/stage-$name pages=$c/berth/pages-$name work=$c/berth/work-$name
  [ -e "$cpd" ] && { echo "why checkpoint $name already exists"; return 3; }
  command -v ctr >/dev/null 2>&1 || { echo "why containerd's client (ctr) is not installed"; return 4; }
  ppid_of "$pid" || { echo "why the container's process $pid is gone"; return 5; }
  shim=$PP sock='' ns='' prev=''
  for a in $(tr '\0' ' ' < "/proc/$shim/cmdline" 2>/dev/null); do
    case $prev in -address) sock=$a ;; -namespace) ns=$a ;; esac
    prev=$a
  done
  [ -S "$sock" ] || { echo "why containerd's socket was not found for process $pid"; return 4; }
  rm -rf "$stage" "$pages" "$work"; mkdir -p "$stage" "$pages" "$work" "$c/checkpoints" && chmod 700 "$c/berth"
  # a lazy resume placing its memory: waited for out of the dump's own budget (lazy.sh)
  now_ms; t_hold=$NOW
  if ! lazy_hold_off $(( budget / 2 )); then
    exec 8>&-
    rm -rf "$stage" "$pages" "$work"
    echo "why a lazy resume on this server held CRIU's configuration for longer than the dump could wait ($(secs $(( budget / 2 ))) s)"
    return 29
  fi
  # (what is said of the budget is the whole of it, the wait included)
  now_ms; whole=$budget budget=$(( budget - (NOW - t_hold) ))
  n=$(end_exec_sessions "$pid")
  [ "$n" != 0 ] && echo "note ended $n exec session(s) (terminal clients, commands run through exec) before the checkpoint"
  freeze_watch_start "$work/.watch" "$pid"
  now_ms; t_start=$NOW
  ctr -a "$sock" -n "${ns:-moby}" task checkpoint --exit --image-path "$stage" --work-path "$work" "$id" >&2 8>&- &
  client=$!
  sample_dump "$client" "$stage" $(( t_start + budget + 1000 )) 8>&- &
  sampler=$!
  late=
  while kill -0 "$client" 2>/dev/null; do
    now_ms
    if [ $(( NOW - t_start )) -ge "$budget" ]; then late=1; end_checkpoint "$client" "$shim" "$id"; break; fi
    sleep 0.05
  done
  if [ -n "$late" ]; then rc=124; else wait "$client"; rc=$?; fi
  exec 8>&-
  dump_sampler_stop
  now_ms; dump_ms=$(( NOW - t_start ))
  freeze_watch_stop "a command started through exec froze with the checkpoint's pause; Berth thawed it so the checkpoint could go on"
  if [ $rc -ne 0 ] || ! grep -q "Dumping finished successfully" "$work/dump.log" 2>/dev/null || [ ! -s "$stage/inventory.img" ]; then
    why=$(dump_failure_why "$work/dump.log")
    unsupported=
    dump_unsupported "$work/dump.log" && unsupported=1
    full=
    grep -q 'No space left on device' "$work/dump.log" 2>/dev/null && full=1
    [ -z "$full" ] && [ "$(df -P "$stage" 2>/dev/null | awk 'NR == 2 {print $4}')" = 0 ] && full=1
    log "dump failed (ctr exit $rc)"; tail -n 5 "$work/dump.log" >&2 2>/dev/null
    free_kib=$(df -P "$c/berth" 2>/dev/null | awk 'NR == 2 {print $4}')
    # nothing half written stays: the partial images go (and give their space back)
    rm -rf "$stage" "$pages" "$work"
    # a killed or failed dump leaves the cgroup as CRIU left it: make it what Docker records
    if fz=$(freezer_of "$pid"); then
      if [ "$paused" = 1 ]; then freeze_cgroup "$fz"
      elif [ "$(thaw_if_frozen "$fz")" = 1 ]; then echo "note the failed checkpoint left the container frozen; Berth thawed it"
      fi
    fi
    if [ -n "$late" ]; then echo "why the memory checkpoint did not finish within $(secs "$whole") s; Berth ended it"; return 124; fi
    if [ -n "$full" ]; then
      free_mib=$(( ${free_kib:-0} / 1024 ))
      echo "why the memory checkpoint did not fit: the filesystem of $c/berth is full ($free_mib MiB free after the partial images were removed)"
      return 28
    fi
    if [ -n "$unsupported" ]; then echo "why $why"; return 29; fi
    echo "why the fast checkpoint failed: ${why:-ctr exit $rc}"
    return 5
  fi
  echo "stage stopped"
  for f in "$stage"/pages-*.img; do
    [ -e "$f" ] || continue
    b=${f##*/}; mv "$f" "$pages/$b" && ln -s "$UP$pages/$b" "$stage/$b" || return 6
  done
  bytes=$(du -sb "$stage" "$pages" | awk '{s += $1} END {print s}')
  printf '{"berth":1,"name":"%s","container":"%s","bytes":%s}\n' "$name" "$id" "$bytes" > "$stage/berth.json"
  # durable before published: every image fsync'd, then the folders, then the rename
  sync "$pages"/* "$stage"/* "$pages" "$stage" || return 8
  mv "$stage" "$cpd" || return 7
  sync "$c/checkpoints" "$cpd" "$c/berth"
  # the writable layer and the volumes (syncfs of each filesystem)
  [ $# -gt 0 ] && sync -f "$@" 2>/dev/null
  now_ms
  echo "bytes $bytes"
  echo "ms $dump_ms"
  echo "durable-ms $(( NOW - t_start ))"
}
# root-checkpoint-info CID ROOT NAME: "layout L", "bytes N", "path P"... of a complete checkpoint.
cmd_root_checkpoint_info() {
  shift; id=$1 root=$2 name=$3
  checkpoint_args_ok "$id" "$root" "$name" || return 2
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
  shift; checkpoint_args_ok "$1" "$2" "$3" || return 2
  cpd=$2/containers/$1/checkpoints/$3
  [ -d "$cpd" ] && sync "$cpd"/* "$cpd"
}
# root-unfold CID ROOT NAME: puts the pages back into the checkpoint folder (Docker's plain layout),
# for a second restore attempt.
cmd_root_unfold() {
  shift; checkpoint_args_ok "$1" "$2" "$3" || return 2
  c=$2/containers/$1; cpd=$c/checkpoints/$3; pages=$c/berth/pages-$3
  for f in "$pages"/pages-*.img; do b=${f##*/}; rm -f "$cpd/$b"; cp "$f" "$cpd/$b" || return 1; done
  sync "$cpd"/pages-*.img "$cpd"
  rm -rf "$pages"
}
# root-after-restore CID ROOT NAME: containerd leaves its extraction folder behind on every
# restore (containerd/containerd#10166); remove the ones that are copies of this checkpoint: with
# Berth's layout their pages link into its pages folder, with Docker's their inventory (which
# records the dump's own uptime) is the checkpoint's.
cmd_root_after_restore() {
  shift; checkpoint_args_ok "$1" "$2" "$3" || return 2
  pages=$2/containers/$1/berth/pages-$3 inventory=$2/containers/$1/checkpoints/$3/inventory.img
  for d in /tmp/ctrd-checkpoint* /var/tmp/ctrd-checkpoint*; do
    if [ -L "$d/pages-1.img" ]; then
      case $(readlink "$d/pages-1.img") in *"$pages/"*) rm -rf "$d" ;; esac
    elif [ -s "$inventory" ] && cmp -s "$d/inventory.img" "$inventory"; then
      rm -rf "$d"
    fi
  done
  return 0
}
cmd_root_remove_checkpoint() {
  shift; checkpoint_args_ok "$1" "$2" "$3" || return 2
  c=$2/containers/$1
  rm -rf "$c/checkpoints/$3" "$c/berth/pages-$3" "$c/berth/work-$3" "$c/berth/stage-$3"
}
# containerd_of PID: the containerd socket (SOCK), namespace (NS) and shim (SHIM) of a container's
# process, read from its shim's command line
containerd_of() {
  ppid_of "$1" || return 1
  SHIM=$PP SOCK='' NS='' co_prev=''
  for co_a in $(tr '\0' ' ' < "/proc/$SHIM/cmdline" 2>/dev/null); do
    case $co_prev in -address) SOCK=$co_a ;; -namespace) NS=$co_a ;; esac
    co_prev=$co_a
  done
  [ -S "$SOCK" ]
}
# root-checkpoint-live CID ROOT NAME PID BUDGET_MS: a CRIU dump that leaves the processes running
# (ctr without --exit: runc's leave-running), written straight into checkpoint NAME in Docker's
# plain layout. The caller froze the container first (its disk is committed in the same freeze).
# Prints "bytes N" and "ms N", or "why TEXT" with a code: 3 exists, 4 no ctr, 5 failed, 124 late.
cmd_root_checkpoint_live() {
  shift; id=$1 root=$2 name=$3 pid=$4 budget=$5
  checkpoint_args_ok "$id" "$root" "$name" || return 2
  is_uint "$pid" && is_uint "$budget" || return 2
  c=$root/containers/$id
  cpd=$c/checkpoints/$name stage=$c/berth/live-$name work=$c/berth/livework-$name
  [ -e "$cpd" ] && { echo "why checkpoint $name already exists"; return 3; }
  command -v ctr >/dev/null 2>&1 || { echo "why containerd's client (ctr) is not installed"; return 4; }
  containerd_of "$pid" || { echo "why containerd's socket was not found for process $pid"; return 4; }
  rm -rf "$stage" "$work"; mkdir -p "$stage" "$work" "$c/checkpoints" && chmod 700 "$c/berth"
  now_ms; t_hold=$NOW
  if ! lazy_hold_off $(( budget / 2 )); then
    exec 8>&-
    rm -rf "$stage" "$work"
    echo "why a lazy resume on this server held CRIU's configuration for longer than the dump could wait ($(secs $(( budget / 2 ))) s)"
    return 5
  fi
  now_ms; whole=$budget budget=$(( budget - (NOW - t_hold) ))
  t_start=$NOW
  ctr -a "$SOCK" -n "${NS:-moby}" task checkpoint --image-path "$stage" --work-path "$work" "$id" >&2 8>&- &
  client=$!
  late=
  while kill -0 "$client" 2>/dev/null; do
    now_ms
    if [ $(( NOW - t_start )) -ge "$budget" ]; then late=1; end_checkpoint "$client" "$SHIM" "$id"; break; fi
    sleep 0.05
  done
  if [ -n "$late" ]; then rc=124; else wait "$client"; rc=$?; fi
  exec 8>&-
  now_ms; dump_ms=$(( NOW - t_start ))
  if [ $rc -ne 0 ] || ! grep -q "Dumping finished successfully" "$work/dump.log" 2>/dev/null || [ ! -s "$stage/inventory.img" ]; then
    why=$(dump_failure_why "$work/dump.log")
    rm -rf "$stage" "$work"
    [ -n "$late" ] && { echo "why the memory dump did not finish within $(( whole / 1000 )) s; Berth ended it"; return 124; }
    echo "why the memory dump failed: ${why:-ctr exit $rc}"
    return 5
  fi
  sync "$stage"/* "$stage" || true
  mv "$stage" "$cpd" || { rm -rf "$stage" "$work"; echo "why the checkpoint could not be put in place"; return 5; }
  rm -rf "$work"
  echo "bytes $(du -sb "$cpd" | awk '{print $1}')"
  echo "ms $dump_ms"
}
# root-set-hostname PID NAME: the hostname inside the UTS namespace of process PID. A session started
# from another's memory gets back the namespace CRIU dumped, with the other session's name in it.
cmd_root_set_hostname() {
  shift; is_uint "$1" || return 2
  case $2 in ''|-*|*[!a-z0-9-]*) return 2 ;; esac
  nsenter -t "$1" -u hostname "$2"
}
# set-hostname C NAME: the running container C's hostname becomes NAME again (its route)
cmd_set_hostname() {
  shift; inspect_container "$1" || fail "container $1 not found"
  [ "$STATUS" = running ] || fail "the container is $STATUS, not running"
  can_root 2>/dev/null || fail "the root helper cannot start on this server"
  as_root root-set-hostname "$PID" "$2" || fail "could not set the hostname"
  echo "hostname 1"
}
cmd_root_probe() { shift; command -v ctr >/dev/null 2>&1 && echo "ctr yes" || echo "ctr no"; echo "uid $(id -u)"; }

# -------------------------------------------------------------------------- checkpoint commands --
# For other verbs (move, fork, rewind): one-shot, attached; each prints "key value" lines.
cmd_checkpoint_create() {
  shift; c=$1 name=$2 method=${3:-docker} budget=${4:-600000}
  is_uint "$budget" || budget=600000
  inspect_container "$c" || fail "container $c not found"
  [ "$STATUS" = running ] || fail "the container is $STATUS, not running"
  SYNC_PATHS="$UPPER $(mount_sources "$c" | tr '\n' ' ')"
  checkpoint_memory "$c" "$name" "$method" "$budget" 0 || fail "$REASON"
  sync_container_fs "$c" "$ROOT"
  echo "layout $LAYOUT"; echo "bytes ${BYTES:-0}"
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
# live_resume C PID: the container runs again after a live capture, and Docker records it running.
# A CRIU killed half way through the dump can leave the cgroup thawed while Docker still records the
# container paused: runc then refuses to resume a container it sees running, and docker unpause
# fails. So the cgroup is made what Docker records (frozen) and docker unpause is tried again, until
# Docker records it unpaused (5 s at most); the cgroup is thawed whatever happened.
live_resume() {
  lr_i=0
  while :; do
    docker unpause "$1" >/dev/null 2>&1
    inspect_container "$1" && [ "$STATUS" != paused ] && break
    lr_i=$((lr_i + 1))
    [ $lr_i -ge 25 ] && break
    as_root root-freezer "$2" frozen
    sleep 0.2
  done
  as_root root-freezer "$2" thawed
  [ "$STATUS" = paused ] && echo "note Docker still records the container paused after the snapshot; Berth thawed its processes"
  return 0
}
# checkpoint-live C NAME IMAGE COMMENT BUDGET_MS: a running container's memory and disk in one brief
# freeze, the container left running: exec sessions end first (CRIU cannot dump them; terminals
# reattach), the container is frozen, its writable layer committed as IMAGE, its memory dumped into
# checkpoint NAME, and it is thawed. Prints "freeze-ms N", then "bytes N" or "memory-failed WHY"
# (the commit stands: the caller keeps the disk and says why). Neither a hang-up nor a closed pipe
# may end this script while the container is frozen.
cmd_checkpoint_live() {
  trap '' HUP PIPE
  shift; c=$1 name=$2 image=$3 comment=$4 budget=$5
  is_uint "$budget" || budget=30000
  checkpoint_name_ok "$name" || fail "not a checkpoint name: $name"
  inspect_container "$c" || fail "container $c not found"
  [ "$STATUS" = running ] || fail "the container is $STATUS, not running"
  can_root 2>/dev/null || fail "the root helper cannot start on this server"
  n=$(as_root root-end-execs "$PID")
  [ "${n:-0}" != 0 ] && echo "note ended $n exec session(s) (terminal clients, commands run through exec) before the freeze"
  now_ms; t0=$NOW
  err=$(docker pause "$c" 2>&1 >/dev/null) || fail "docker pause failed: $(echo "$err" | head -n 1)"
  if ! err=$(docker commit --pause=false -m "$comment" "$c" "$image" 2>&1 >/dev/null); then
    docker unpause "$c" >/dev/null 2>&1 || as_root root-freezer "$PID" thawed
    fail "docker commit failed: $(echo "$err" | head -n 1)"
  fi
  pid=$PID
  out=$(as_root root-checkpoint-live "$CID" "$ROOT" "$name" "$PID" "$budget")
  # read before live_resume: inspect_container sets $out too
  bytes=$(printf '%s\n' "$out" | awk '/^bytes / {print $2}')
  dump_ms=$(printf '%s\n' "$out" | awk '/^ms / {print $2}')
  why=$(printf '%s\n' "$out" | sed -n 's/^why //p' | head -n 1)
  live_resume "$c" "$pid"
  now_ms; echo "freeze-ms $(( NOW - t0 ))"
  if [ -n "$bytes" ]; then
    echo "bytes $bytes"
    if [ -n "$dump_ms" ]; then echo "dump-ms $dump_ms"; fi
  else
    echo "memory-failed ${why:-the memory dump failed}"
  fi
  inspect_container "$c" && [ "$STATUS" = running ] || echo "note the container is $STATUS after the snapshot"
}
# after-restore CID ROOT NAME: the clean-up a fast restore leaves for later (off its critical path).
cmd_after_restore() { shift; if can_root 2>/dev/null; then as_root root-after-restore "$1" "$2" "$3"; fi; }
cmd_image_remove() { shift; for i in "$@"; do docker rmi "$i" >/dev/null 2>&1; done; return 0; }
cmd_sync() { shift; inspect_container "$1" || fail "container $1 not found"; sync_container_fs "$1" "$ROOT"; echo "synced 1"; }
# probe: what this server offers: "uid N", "ctr yes|no", "root yes|no" (see probe-memory for what
# its CRIU can do)
cmd_probe() {
  if can_root 2>/dev/null; then echo "root yes"; as_root root-probe; else echo "root no"; echo "uid $(id -u)"; fi
}
