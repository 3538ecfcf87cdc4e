#!/bin/sh
# berth-server: Berth's server-side steps, one POSIX sh program installed on each server (in the
# ssh user's state folder) and run there with DOCKER_HOST set. Usage: berth-server.sh COMMAND ARGS...
# Environment: DOCKER_HOST (the engine), BERTH_HOME_ID (names this Berth's helper and job folder).
# It is built from the files next to this one (common, jobs, root, freeze, checkpoint, lazy, probe, pause,
# transfer, images, diff, main), in that order; job-protocol.ts (beside server-script.ts) parses what it prints.
set -u
SELF=$0
HOME_ID=${BERTH_HOME_ID:-default}
STATE=${XDG_STATE_HOME:-$HOME/.local/state}/berth/$HOME_ID
J=${BERTH_JOB:-}

# Milliseconds since boot from /proc/uptime (10 ms steps), read with builtins: on a small VM every
# fork costs 20 ms or more, so the hot paths of this script avoid them.
now_ms() {
  read -r up _ < /proc/uptime
  frac=${up#*.}; frac=${frac#0}
  NOW=$(( ${up%.*} * 1000 + frac * 10 ))
}
now_ms; T0=$NOW
UID_NOW=$(id -u)
# elapsed: milliseconds since this program started, in ELAPSED
elapsed() { now_ms; ELAPSED=$(( NOW - T0 )); }
# Status lines (see job-protocol.ts): "stage NAME MS [ARG]", "note TEXT", "fallback WHY",
# "metric NAME VALUE...", "result JSON", "error TEXT". In a job they go to the job's status file
# (the core follows it); otherwise to stdout.
emit() { if [ -n "$J" ]; then printf '%s\n' "$*" >> "$J.status"; else printf '%s\n' "$*"; fi; }
stage() { now_ms; emit "stage $1 $(( NOW - T0 )) ${2:-}"; }
# (a freeze watcher runs while its flag file exists: a job that fails ends it too)
fail() { [ -n "${flag:-}" ] && rm -f "$flag"; emit "error $*"; exit 1; }
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr '\n\t\r' '   ')"; }
# is_uint VALUE: a plain decimal number (what the core passes as sizes and times)
is_uint() { case $1 in ''|*[!0-9]*) return 1 ;; *) return 0 ;; esac; }
# secs MS: MS as seconds with one decimal (2.4), for what a person reads; a time already past is 0.0
secs() { if [ "$1" -gt 0 ]; then echo "$(( $1 / 1000 )).$(( $1 % 1000 / 100 ))"; else echo 0.0; fi; }
# sleep_ms MS: sleeps that long (sleep takes fractions on every system Berth supports)
sleep_ms() { sleep "$(( $1 / 1000 )).$(printf '%03d' $(( $1 % 1000 )))"; }

# kill_tree SIGNAL PID...: the processes and all their descendants (found through /proc, parents
# first, so nothing escapes by being reparented while the tree is walked)
kill_tree() {
  kt_sig=$1; shift
  kt_all=" $* "
  kt_more=1
  while [ -n "$kt_more" ]; do
    kt_more=
    for kt_st in /proc/[0-9]*/status; do
      kt_pid=${kt_st#/proc/}; kt_pid=${kt_pid%/status}
      case $kt_all in *" $kt_pid "*) continue ;; esac
      kt_pp=
      while read -r kt_k kt_v; do [ "$kt_k" = PPid: ] && { kt_pp=$kt_v; break; }; done < "$kt_st" 2>/dev/null
      case $kt_all in *" $kt_pp "*) kt_all="$kt_all$kt_pid "; kt_more=1 ;; esac
    done
  done
  # shellcheck disable=SC2086
  kill "-$kt_sig" $kt_all 2>/dev/null
  return 0
}
