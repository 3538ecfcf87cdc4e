
# ------------------------------------------------------------------------------------------ probe --
# probe-memory METHOD [LIMIT_S]: can this server pause with memory, and how fast? A real test, not a
# guess from versions: a throwaway container holding 64 MiB is checkpointed the way Berth's pauses
# do it (METHOD fast: containerd's client; docker: Docker's API), ended after LIMIT_S seconds as a
# pause's dump would be, then restored through Docker, as a resume is. In parallel a host process is
# dumped directly with and without CRIU_FAULT=130, to tell hardware breakpoints that never fire (on
# some VMs) from other causes. Lines (checkpoints/criu-probe.ts reads them):
#   root yes|no, criu PATH | criu none, criu-version V, fault VALUE (CRIU_FAULT in the engine's
#   environment), uffd yes|no, dirty-track yes|no, dump ok MS BYTES | dump late MS | dump fail TEXT,
#   restore ok MS | restore late MS | restore fail TEXT, diagnose plain|fault130|other-user ok|late|fail|rlimit
PROBE_MIB=64
# a restore is only tried once a dump worked (a CRIU that hangs was found by then): it gets long
# enough that a busy machine's working CRIU is not taken for a broken one (criu-probe.ts says it)
PROBE_RESTORE_S=30
cmd_probe_memory() {
  shift; method=${1:-fast} limit=${2:-9}
  is_uint "$limit" || limit=9
  if can_root 2>/dev/null; then echo "root yes"; else echo "root no"; fi
  pt=$STATE/probe.$$
  mkdir -p "$pt" || { echo "dump fail cannot write $pt"; return 0; }
  diag=
  probe_container "$method" "$limit" "$pt"
  # shellcheck disable=SC2086
  [ -n "$diag" ] && wait $diag
  cat "$pt/features" "$pt/diagnose" 2>/dev/null
  rm -rf "$pt"
}
# probe_image: an image that runs the host's own binaries: the host's /usr (and any other system
# folder that is a real one) bound in read-only, its top-level links (bin -> usr/bin on merged
# systems) as files of the image. Binding a linked folder such as /bin would make a mount CRIU
# cannot restore. Sets PROBE_IMAGE and PROBE_BINDS.
probe_image() {
  PROBE_BINDS="-v /usr:/usr:ro" links=''
  for p in /bin /sbin /lib /lib32 /lib64 /libx32; do
    if [ -L "$p" ]; then links="$links ${p#/}=$(readlink "$p")"
    elif [ -d "$p" ]; then PROBE_BINDS="$PROBE_BINDS -v $p:$p:ro"
    fi
  done
  PROBE_IMAGE=berth-probe:$(printf '%s' "$links" | cksum | cut -d' ' -f1)
  docker image inspect "$PROBE_IMAGE" >/dev/null 2>&1 && return 0
  pi=$(mktemp -d "${TMPDIR:-/tmp}/berth-probe.XXXXXX") || return 1
  for l in $links; do ln -s "${l#*=}" "$pi/${l%%=*}" || { rm -rf "$pi"; return 1; }; done
  tar -C "$pi" -cf - . | docker import -c 'LABEL berth.role=probe' - "$PROBE_IMAGE" >/dev/null
  rc=$?
  rm -rf "$pi"
  return $rc
}
# probe_container METHOD LIMIT DIR: the throwaway container's dump and restore (see probe-memory)
probe_container() {
  pc=berth-probe-$HOME_ID
  docker rm -f "$pc" >/dev/null 2>&1
  probe_image || { echo "dump fail the probe's image could not be made"; return 0; }
  # shellcheck disable=SC2086
  if ! err=$(docker run -d --name "$pc" --label berth.home="$HOME_ID" --label berth.role=probe --net=none --restart=no \
    $PROBE_BINDS "$PROBE_IMAGE" /bin/sh -c "dd if=/dev/zero bs=${PROBE_MIB}M count=1 2>/dev/null | sleep 600" 2>&1 >/dev/null); then
    echo "dump fail the probe's container did not start: $(echo "$err" | head -n 1)"; return 0
  fi
  inspect_container "$pc" || { echo "dump fail the probe's container vanished"; return 0; }
  facts=$(as_root root-criu-facts "$PID" 2>/dev/null)
  echo "$facts"
  # the engine's own CRIU, dumping a host process directly beside the container's dump
  engine_criu=$(echo "$facts" | awk '/^criu \// {print $2; exit}')
  if [ -n "$engine_criu" ]; then
    # both beside the container's dump, so a CRIU that hangs costs the probe its limit once
    as_root root-criu-features "$engine_criu" > "$3/features" 2>/dev/null &
    features=$!
    as_root root-criu-diagnose "$limit" "$engine_criu" > "$3/diagnose" 2>/dev/null &
    diag="$features $!"
  fi
  # the memory is there once dd waits on its pipe (it fills its buffer in a few milliseconds)
  sleep 0.3
  now_ms; t=$NOW
  if [ "$method" = docker ]; then
    docker checkpoint create "$pc" probe > "$3/dump.out" 2>&1 &
    client=$!; late=
    while kill -0 "$client" 2>/dev/null; do
      now_ms; [ $(( NOW - t )) -ge $(( $2 * 1000 )) ] && { late=1; kill -KILL "$client"; as_root root-end-runc "$CID" checkpoint "$PID" frozen-no; break; }
      sleep 0.05
    done
    wait "$client"; rc=$?
    now_ms; ms=$(( NOW - t ))
    if [ -n "$late" ]; then echo "dump late $ms"
    elif [ $rc != 0 ]; then echo "dump fail $(head -n 1 "$3/dump.out")"
    else bytes=$(as_root root-checkpoint-info "$CID" "$ROOT" probe 2>/dev/null | awk '/^bytes / {print $2}'); echo "dump ok $ms ${bytes:-0}"
    fi
  else
    out=$(as_root root-checkpoint "$CID" "$ROOT" probe "$PID" $(( $2 * 1000 )) 0 2>/dev/null); rc=$?
    now_ms; ms=$(( NOW - t ))
    case $rc in
      0) echo "dump ok $(echo "$out" | awk '/^ms / {print $2}') $(echo "$out" | awk '/^bytes / {print $2}')" ;;
      124) echo "dump late $ms" ;;
      *) echo "dump fail $(echo "$out" | awk '/^why / {sub(/^why /, ""); print; exit}')" ;;
    esac
  fi
  # as every restore: not while a lazy restore's config is in place (lazy.sh)
  if [ $rc = 0 ] && [ -z "${late:-}" ] && ! lazy_hold_off $(( PROBE_RESTORE_S * 500 )); then
    exec 8>&-
    echo "restore fail a lazy resume on this server held CRIU's configuration for longer than the probe could wait"
  elif [ $rc = 0 ] && [ -z "${late:-}" ]; then
    inspect_container "$pc"
    before=$STARTED
    now_ms; t=$NOW
    docker start --checkpoint probe "$pc" > "$3/restore.out" 2>&1 &
    client=$!; late=
    while kill -0 "$client" 2>/dev/null; do
      now_ms; [ $(( NOW - t )) -ge $(( PROBE_RESTORE_S * 1000 )) ] && { late=1; kill -KILL "$client"; as_root root-end-runc "$CID" restore 0 frozen-no; break; }
      sleep 0.05
    done
    wait "$client"; rc=$?
    exec 8>&-
    now_ms; ms=$(( NOW - t ))
    inspect_container "$pc"
    if [ -n "$late" ]; then echo "restore late $ms"
    elif [ "$STATUS" = running ] && [ "$STARTED" != "$before" ]; then echo "restore ok $ms"
    else echo "restore fail $(head -n 1 "$3/restore.out")"
    fi
    # containerd's copy of the probe's checkpoint goes too, before the container (and so the
    # checkpoint it is compared with) does
    as_root root-after-restore "$CID" "$ROOT" probe >/dev/null 2>&1
  fi
  docker rm -f "$pc" >/dev/null 2>&1
  return 0
}
# root-criu-facts PID: which CRIU the engine runs, as containerd's shim of the container PID finds
# it (its PATH), and with what CRIU_FAULT
cmd_root_criu_facts() {
  shift; is_uint "$1" || return 2
  ppid_of "$1" || return 0
  env_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin env_fault=
  while IFS= read -r kv; do
    case $kv in PATH=*) env_path=${kv#PATH=} ;; CRIU_FAULT=*) env_fault=${kv#CRIU_FAULT=} ;; esac
  done <<EOF2
$(tr '\0' '\n' < "/proc/$PP/environ" 2>/dev/null)
EOF2
  criu=$(PATH=$env_path command -v criu 2>/dev/null)
  if [ -z "$criu" ]; then echo "criu none"; return 0; fi
  echo "criu $criu"
  echo "fault ${env_fault:-none}"
}
# root-criu-features CRIU: what the kernel offers that CRIU (lazy pages, dirty tracking) and its
# version; each question at most 2 s (a CRIU that hangs answers nothing, and holds nothing up)
cmd_root_criu_features() {
  shift; criu=$1
  case $criu in /*) [ -x "$criu" ] || return 0 ;; *) return 2 ;; esac
  (v=$(timeout -s KILL 2 "$criu" --version 2>/dev/null | awk '/^Version:/ {print $2; exit}'); echo "criu-version ${v:-unknown}") &
  (if timeout -s KILL 2 "$criu" check --feature uffd-noncoop >/dev/null 2>&1; then echo "uffd yes"; else echo "uffd no"; fi) &
  (if timeout -s KILL 2 "$criu" check --feature mem_dirty_track >/dev/null 2>&1; then echo "dirty-track yes"; else echo "dirty-track no"; fi) &
  wait
}
# root-criu-diagnose LIMIT CRIU: a host process holding a little memory, dumped directly by the
# engine's CRIU, plainly and with CRIU_FAULT=130 (breakpoints off), and one of another user's (as
# nobody), all at once, each ended after LIMIT seconds
cmd_root_criu_diagnose() {
  shift; lim=$1 criu=$2
  is_uint "$lim" || return 2
  case $criu in /*) [ -x "$criu" ] || return 0 ;; *) return 2 ;; esac
  for how in plain fault130 other-user; do
    (
      d=$(mktemp -d "${TMPDIR:-/tmp}/berth-diagnose.XXXXXX") || exit 0
      # other-user: a process of nobody's, as a session's non-root user is (its dump needs the
      # rights to read another user's resource limits, which some servers do not give CRIU)
      if [ $how = other-user ]; then
        command -v setpriv >/dev/null 2>&1 || { rm -rf "$d"; exit 0; }
        setsid setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'dd if=/dev/zero bs=4M count=1 2>/dev/null | sleep 600' </dev/null >/dev/null 2>&1 &
      else
        setsid sh -c 'dd if=/dev/zero bs=4M count=1 2>/dev/null | sleep 600' </dev/null >/dev/null 2>&1 &
      fi
      victim=$!
      sleep 0.1
      # breakpoints off for the other user's test: it asks about rights, not about breakpoints
      if [ $how = plain ]; then f=; else f=130; fi
      if [ -n "$f" ]; then CRIU_FAULT=$f timeout -s KILL "$lim" "$criu" dump -t "$victim" -D "$d" -o dump.log >/dev/null 2>&1; rc=$?
      else env -u CRIU_FAULT timeout -s KILL "$lim" "$criu" dump -t "$victim" -D "$d" -o dump.log >/dev/null 2>&1; rc=$?
      fi
      case $rc in
        0) echo "diagnose $how ok" ;;
        137|124) echo "diagnose $how late" ;;
        *) if dump_hit_rlimit "$d/dump.log"; then echo "diagnose $how rlimit"; else echo "diagnose $how fail"; fi ;;
      esac
      kill_tree KILL "$victim"
      rm -rf "$d"
    ) &
  done
  wait
}
# root-end-runc CID VERB PID PAUSED: ends the runc (and its CRIU) that containerd's shim runs for VERB
# (checkpoint, restore) on container CID, as a dump past its time is ended; PAUSED=frozen-yes leaves
# the cgroup of PID frozen (as Docker records it), else thawed
cmd_root_end_runc() {
  shift; container_id_ok "$1" || return 2
  er_pids=
  for er_st in /proc/[0-9]*/status; do
    er_pid=${er_st#/proc/}; er_pid=${er_pid%/status}
    case $(tr '\0' ' ' < "/proc/$er_pid/cmdline" 2>/dev/null) in *runc*" $2 "*"$1"*) er_pids="$er_pids $er_pid" ;; esac
  done
  # shellcheck disable=SC2086
  [ -n "$er_pids" ] && kill_tree KILL $er_pids
  sleep 0.2
  if is_uint "$3" && [ "$3" != 0 ] && fz=$(freezer_of "$3"); then
    if [ "$4" = frozen-yes ]; then freeze_cgroup "$fz"; else thaw_if_frozen "$fz" >/dev/null; fi
  fi
  return 0
}
# criu-version: the CRIU on the default PATH and its version ("criu none" without one): cheap, for
# telling whether the last probe still holds
cmd_criu_version() {
  shift
  criu=$(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v criu 2>/dev/null) || { echo "criu none"; return 0; }
  v=$(timeout -s KILL 2 "$criu" --version 2>/dev/null | awk '/^Version:/ {print $2; exit}')
  echo "criu $criu ${v:-unknown}"
}
