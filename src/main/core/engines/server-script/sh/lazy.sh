
# ------------------------------------------------------------------------------------ lazy pages --
# A resume that does not wait for all memory: Docker's restore (`start --checkpoint`, which keeps
# Docker's view of the container right) made lazy from outside. runc hands CRIU the config file
# /etc/criu/runc.conf with every restore, and CRIU lets that file override runc's own options
# (criu/cr-service.c, "overwrite RPC settings"): for the one restore it holds `lazy-pages` and a work
# directory of Berth's where `criu lazy-pages` (criu/uffd.c) already listens on lazy-pages.socket.
# CRIU restores the process tree without the anonymous memory and hands each process's userfaultfd to
# that daemon, which serves the pages as they are touched and streams the rest; it exits once every
# page is in. The file is removed as soon as CRIU has read it (its restore.log appears in the work
# directory, which CRIU opens after reading its options), under a lock, so no other dump or restore
# ever sees it. The checkpoint is never touched here: it stays, whole, until the core removes it
# after "done".
LAZY_DIR=/run/berth-lazy
LAZY_CONF=/etc/criu/runc.conf
LAZY_LOCK=/run/berth-criu.lock

# lazy-arm C NAME DEADLINE_S [CRIU]: prepares container C's next restore from checkpoint NAME to be
# lazy, and answers "armed 1" (the caller then restores through Docker), or "why TEXT" when it cannot
# be. DEADLINE_S bounds the whole: the restore must start within 20 s, all memory back by DEADLINE_S.
# CRIU: the engine's own CRIU, as the memory probe found it on runc's PATH (the page server and the
# restore speak one protocol: they must be the same CRIU); else the one on the default PATH.
cmd_lazy_arm() {
  shift; c=$1 name=$2 deadline=$3 criu=${4:-}
  checkpoint_name_ok "$name" || fail "not a checkpoint name: $name"
  is_uint "$deadline" || fail "not a deadline: $deadline"
  inspect_container "$c" || fail "container $c not found"
  [ "$STATUS" = running ] && { echo "why the container is already running"; return 0; }
  can_root 2>/dev/null || { echo "why the root helper cannot start on this server"; return 0; }
  as_root root-lazy-arm "$CID" "$ROOT" "$name" "$deadline" ${criu:+"$criu"}
}
# lazy-wait C [LIMIT_S]: waits (at most LIMIT_S, default 120) until the lazy restore of container C
# has all its memory back: "lazy done MS", "lazy failed WHY" (the container was stopped: its memory
# is still whole in the checkpoint), "lazy running" (not finished by LIMIT_S), or "lazy none".
cmd_lazy_wait() {
  shift; c=$1 limit=${2:-120}
  is_uint "$limit" || limit=120
  inspect_container "$c" || fail "container $c not found"
  w=$LAZY_DIR/$CID
  [ -d "$w" ] || { echo "lazy none"; return 0; }
  now_ms; end=$(( NOW + limit * 1000 ))
  while :; do
    if [ -s "$w/result" ]; then sed 's/^/lazy /' "$w/result"; return 0; fi
    now_ms
    [ "$NOW" -ge "$end" ] && { echo "lazy running"; return 0; }
    sleep 0.1
  done
}
# lazy-stop C: ends a lazy restore of C that is still under way (its daemon and the container: a
# process whose pages cannot arrive any more must not run on with zeroes where its memory was)
cmd_lazy_stop() {
  shift; inspect_container "$1" || { echo "stopped 0"; return 0; }
  can_root 2>/dev/null || fail "the root helper cannot start on this server"
  as_root root-lazy-stop "$CID"
}
# lazy-forget C: removes the record of C's lazy restore once it is over and the core has read its
# outcome ("forgot 1"); one still under way is left alone ("forgot 0")
cmd_lazy_forget() {
  shift; inspect_container "$1" || { echo "forgot 0"; return 0; }
  [ -d "$LAZY_DIR/$CID" ] || { echo "forgot 0"; return 0; }
  can_root 2>/dev/null || fail "the root helper cannot start on this server"
  as_root root-lazy-forget "$CID"
}

# lazy_hold_off LIMIT_MS: every other dump and restore holds the lock shared on fd 8 while it runs,
# so that no lazy restore's config is in place when its CRIU reads it (`lazy-pages` would make a
# dump wait for a page client, and a restore in full hand its memory to another session's page
# server). A lazy restore holds the lock only until its CRIU has read the config (a second, at most
# 20 s); the caller waits for it at most LIMIT_MS (part of a dump's own budget: a pause before the
# lid closes keeps its deadline), and fails (1) if that restore's config is still there. The config
# is the machine's (/etc/criu), whichever engine runs there: a server reached as a user holds the
# same lock (the file root made, opened to read: flock needs no more).
lazy_hold_off() {
  # (a redirection that fails ends a non-interactive sh when it is exec's: checked first)
  if [ -w "${LAZY_LOCK%/*}" ]; then
    exec 8>"$LAZY_LOCK"
  else
    # made by root once per boot, before any lazy restore could need it (its keeper makes it too)
    [ -e "$LAZY_LOCK" ] || as_root root-lazy-lock >/dev/null 2>&1
    [ -r "$LAZY_LOCK" ] || return 0
    exec 8<"$LAZY_LOCK"
  fi
  command -v flock >/dev/null 2>&1 && flock -s -w "$(secs "$1")" 8
  if [ "$UID_NOW" = 0 ]; then lazy_conf_clean
  elif lazy_conf_stale; then as_root root-lazy-conf-clean >/dev/null 2>&1
  fi
  ! lazy_conf_live
}
# root-lazy-lock: the lock file, for a user's restores to hold (see lazy_hold_off)
cmd_root_lazy_lock() { [ -e "$LAZY_LOCK" ] || : >> "$LAZY_LOCK"; chmod 644 "$LAZY_LOCK"; }
cmd_root_lazy_conf_clean() { lazy_conf_clean; }
# lazy_conf_stale: a lazy restore's config is in place whose keeper is gone (or, to a user, cannot be
# seen: root's processes answer kill -0 with EPERM, which says they exist)
lazy_conf_stale() {
  [ -e "$LAZY_CONF" ] || return 1
  lc_w=$(sed -n 's/^work-dir //p' "$LAZY_CONF" 2>/dev/null)
  case $lc_w in "$LAZY_DIR"/*) ;; *) return 1 ;; esac
  ! lazy_conf_live
}

# criu-hold LIMIT_S: (streamed) a restore the core makes through the Docker API holds the lock as the
# server's own do (lazy_hold_off): "held 1" once no lazy restore's config is in place (waited for at
# most 30 s), else "why TEXT"; then held until the core closes stdin (its restore returned), or
# LIMIT_S at most, whatever happens to the core.
cmd_criu_hold() {
  shift; limit=${1:-120}
  is_uint "$limit" || limit=120
  if ! lazy_hold_off 30000; then
    echo "why a lazy resume on this server held CRIU's configuration for longer than 30 s"
    return 0
  fi
  echo "held 1"
  timeout -s KILL "$limit" sh -c 'read -r _' 8>&-
  return 0
}
# lazy_conf_live: the config in place is a lazy restore's whose keeper runs
lazy_conf_live() {
  [ -e "$LAZY_CONF" ] || return 1
  lc_w=$(sed -n 's/^work-dir //p' "$LAZY_CONF" 2>/dev/null)
  case $lc_w in "$LAZY_DIR"/*) ;; *) return 1 ;; esac
  [ -s "$lc_w/keeper" ] || return 1
  lc_k=$(cat "$lc_w/keeper")
  is_uint "$lc_k" && { kill -0 "$lc_k" 2>/dev/null || [ -d "/proc/$lc_k" ]; }
}

lazy_criu() { PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v criu 2>/dev/null; }

# root-lazy-arm CID ROOT NAME DEADLINE_S [CRIU]: starts the lazy restore's keeper in the background and
# answers once the config is in place ("armed 1") or it could not be ("why TEXT").
cmd_root_lazy_arm() {
  shift; id=$1 root=$2 name=$3 deadline=$4 criu=${5:-}
  checkpoint_args_ok "$id" "$root" "$name" || return 2
  is_uint "$deadline" || return 2
  cpd=$root/containers/$id/checkpoints/$name
  [ -s "$cpd/inventory.img" ] || { echo "why checkpoint $name is not complete"; return 0; }
  case $criu in
    '') criu=$(lazy_criu) || { echo "why CRIU is not installed"; return 0; } ;;
    *[!A-Za-z0-9/._+-]*) return 2 ;;
    /*) [ -x "$criu" ] || { echo "why the engine's CRIU ($criu) is not there any more"; return 0; } ;;
    *) return 2 ;;
  esac
  command -v flock >/dev/null 2>&1 || { echo "why flock is not installed"; return 0; }
  lazy_conf_clean
  w=$LAZY_DIR/$id
  if [ -s "$w/keeper" ] && kill -0 "$(cat "$w/keeper")" 2>/dev/null; then echo "why a lazy restore of this container is still under way"; return 0; fi
  lazy_remove_work "$w"
  if ! mkdir -p "$w" "${LAZY_CONF%/*}" || ! chmod 755 "$LAZY_DIR" "$w"; then echo "why cannot write $w"; return 0; fi
  # exec, not a redirection of the call: dash keeps a copy of a redirected fd to restore it after
  # the call, and the keeper would hold the caller's stdout open for its whole life
  (exec </dev/null >"$w/keeper.log" 2>&1; lazy_keeper "$id" "$cpd" "$w" "$criu" "$deadline") &
  kp=$!
  echo "$kp" > "$w/keeper"
  # the keeper bounds itself (5 s for its page server, 30 s for the lock: other lazy restores
  # hold it a moment each); answered before the core restores at all: waited for, not skipped,
  # since a restore in full while another's config is in place would read that config
  i=0
  while [ $i -lt 2000 ]; do
    [ -e "$w/armed" ] && { echo "armed 1"; return 0; }
    [ -s "$w/result" ] && { echo "why $(sed 's/^failed //' "$w/result")"; return 0; }
    sleep 0.02; i=$((i + 1))
  done
  kill_tree KILL "$kp"
  wait "$kp" 2>/dev/null
  # only a config this keeper put there (another restore's, still read, stays)
  lazy_conf_clean
  echo "why the lazy restore was not ready within 40 s"
}

# lazy_give_up WHY: ends a lazy restore that cannot finish (the container's tasks first: once its
# page server is gone, a page not yet served would read as zeroes), its checkpoint kept; uses id, lp, w
lazy_give_up() {
  lazy_kill_container "$id"
  kill -KILL "$lp" 2>/dev/null
  wait "$lp" 2>/dev/null
  echo "failed $1; the container was stopped and its checkpoint kept" > "$w/result"
}

# lazy_keeper CID CHECKPOINT_DIR WORK CRIU DEADLINE_S: holds the lock while the config exists, keeps
# the lazy-pages daemon to its deadline, and writes WORK/result: "done MS" once every page is in,
# else "failed WHY" after stopping the container (its memory is still whole in the checkpoint).
lazy_keeper() {
  id=$1 cpd=$2 w=$3 criu=$4 deadline=$5
  now_ms; t0=$NOW
  # the page server first, outside the lock: it reads only this checkpoint and its own work folder
  ( cd "$w" && exec "$criu" lazy-pages -D "$cpd" -W "$w" -o lazy.log -v2 ) &
  lp=$!
  echo "$lp" > "$w/daemon"
  i=0
  while [ ! -S "$w/lazy-pages.socket" ]; do
    i=$((i + 1))
    if [ $i -gt 250 ] || ! kill -0 "$lp" 2>/dev/null; then
      kill -KILL "$lp" 2>/dev/null
      echo "failed the lazy-pages daemon did not start: $(lazy_why "$w")" > "$w/result"
      return 0
    fi
    sleep 0.02
  done
  # the config is the one thing lazy restores (and dumps) share: held only while it is in place
  exec 9>"$LAZY_LOCK"
  if ! flock -w 30 9; then
    kill -KILL "$lp" 2>/dev/null
    echo "failed a dump or another lazy restore held CRIU's config for 30 s" > "$w/result"
    return 0
  fi
  printf 'lazy-pages\nwork-dir %s\n' "$w" > "$LAZY_CONF.berth" && mv "$LAZY_CONF.berth" "$LAZY_CONF"
  : > "$w/armed"
  # The config is read more than once per restore (runc's CRIU feature check logs into the same
  # file before the restore itself), so it stays until the restore proper has read its options:
  # "Reading image tree" is the restore's first step after them (criu/cr-restore.c), the only read
  # that matters; or it failed
  i=0
  while ! lazy_log_has 'Reading image tree|Error' "$w/restore.log" && [ $i -lt 1000 ] && kill -0 "$lp" 2>/dev/null; do sleep 0.02; i=$((i + 1)); done
  rm -f "$LAZY_CONF"
  exec 9>&-
  if [ ! -e "$w/restore.log" ]; then
    kill -KILL "$lp" 2>/dev/null
    echo "failed the restore did not start within 20 s" > "$w/result"
    return 0
  fi
  # The restore itself needs a few pages served (the kernel writes each task's rseq area as CRIU's
  # restorer registers it): a page server that does not serve holds Docker's start. It may not for
  # long: 20 s, or the deadline if sooner; then the container (the restore's tasks) is stopped, the
  # start fails, and the core restores in full from the checkpoint, which was never touched.
  now_ms; r_from=$NOW r_end=$(( NOW + 20000 ))
  [ $(( t0 + deadline * 1000 )) -lt $r_end ] && r_end=$(( t0 + deadline * 1000 ))
  while ! lazy_log_has 'Restore finished successfully|Error' "$w/restore.log" && kill -0 "$lp" 2>/dev/null; do
    now_ms
    if [ "$NOW" -ge "$r_end" ]; then
      lazy_give_up "the restore did not finish within $(secs $(( NOW - r_from ))) s: its page server did not serve the pages it needs"
      return 0
    fi
    sleep 0.02
  done
  # the daemon exits by itself once every page is in; it may not take longer than the deadline
  while kill -0 "$lp" 2>/dev/null; do
    now_ms
    if [ $(( NOW - t0 )) -ge $(( deadline * 1000 )) ]; then
      lazy_give_up "not all memory was back within $deadline s"
      return 0
    fi
    sleep 0.05
  done
  wait "$lp"; rc=$?
  now_ms
  if [ $rc = 0 ] && ! lazy_log_has 'Error' "$w/lazy.log"; then
    echo "done $(( NOW - t0 ))" > "$w/result"
  else
    lazy_kill_container "$id"
    echo "failed the lazy-pages daemon stopped before all memory was back (exit $rc: $(lazy_why "$w")); the container was stopped and its checkpoint kept" > "$w/result"
  fi
}
# lazy_conf_clean: removes a config whose keeper is gone (killed with it in place): left there it
# would make every later restore lazy, waiting for a daemon that does not exist
lazy_conf_clean() {
  lazy_conf_stale || return 0
  rm -f "$LAZY_CONF"
}
# lazy_log_has PATTERN LOG: a line of CRIU's log matches, CRIU's harmless RLIMIT_NOFILE error aside
lazy_log_has() { grep -E "$1" "$2" 2>/dev/null | grep -q -v 'RLIMIT_NOFILE'; }
lazy_why() { grep -E 'Error' "$1/lazy.log" 2>/dev/null | grep -v 'RLIMIT_NOFILE' | head -n 1 | cut -c1-160; }
# lazy_kill_container CID: every process of the container, through its cgroup (cgroup v1 or v2)
lazy_kill_container() {
  for f in /sys/fs/cgroup/pids/docker/"$1"/cgroup.procs /sys/fs/cgroup/docker/"$1"/cgroup.procs \
    /sys/fs/cgroup/system.slice/docker-"$1".scope/cgroup.procs /sys/fs/cgroup/pids/system.slice/docker-"$1".scope/cgroup.procs; do
    [ -r "$f" ] || continue
    # shellcheck disable=SC2046 # one pid per word
    kill -KILL $(cat "$f") 2>/dev/null
    return 0
  done
  return 1
}
# root-lazy-forget CID: the work folder of a lazy restore that is over: its result written (the
# keeper's last act, after which it only exits: it may still be there a moment) or its keeper gone
cmd_root_lazy_forget() {
  shift; container_id_ok "$1" || return 2
  w=$LAZY_DIR/$1
  if [ ! -s "$w/result" ] && [ -s "$w/keeper" ] && kill -0 "$(cat "$w/keeper")" 2>/dev/null; then echo "forgot 0"; return 0; fi
  lazy_conf_clean
  lazy_remove_work "$w"
  echo "forgot 1"
}
# lazy_remove_work DIR: a lazy restore's work folder, with what a CRIU killed half way through its
# restore left mounted in it (its cgroup yard, .criu.cgyard.*, which it unmounts only at its end)
lazy_remove_work() {
  # shellcheck disable=SC2013 # one mount point a line; the deepest first
  for m in $(awk -v w="$1/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m" 2>/dev/null; done
  rm -rf "$1"
}
# root-lazy-stop CID: the keeper, its daemon and the container's processes; "why TEXT" when the
# lazy restore had failed (how the keeper ended it)
cmd_root_lazy_stop() {
  shift; container_id_ok "$1" || return 2
  w=$LAZY_DIR/$1 n=0 live=
  [ -s "$w/keeper" ] && kill -0 "$(cat "$w/keeper")" 2>/dev/null && live=1
  # the container's tasks before the page server (a page it has not served would read as zeroes)
  [ -n "$live" ] && [ ! -s "$w/result" ] && lazy_kill_container "$1"
  for p in keeper daemon; do
    [ -s "$w/$p" ] && kill -KILL "$(cat "$w/$p")" 2>/dev/null && n=$((n + 1))
  done
  if [ $n -gt 0 ] && [ ! -s "$w/result" ]; then
    echo "failed the lazy restore was stopped before all memory was back; the container was stopped and its checkpoint kept" > "$w/result"
  fi
  lazy_conf_clean
  echo "stopped $n"
  [ -s "$w/result" ] && sed -n '1s/^failed /why /p' "$w/result"
  return 0
}
