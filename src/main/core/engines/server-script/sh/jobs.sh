# ---------------------------------------------------------------------------------------- jobs --
# A job's files: $STATE/jobs/JOB.status (its status lines, ending with "rc N"), .pid, .boot, .log.
# Work that must finish even if the laptop's connection drops runs as a job: the core follows its
# status file and, after a drop or a crash, reads it again on the next contact.

# job_name NAME: whether NAME can name a job's files (the core makes them; nothing else is trusted)
job_name() { case $1 in ''|*[!A-Za-z0-9._-]*|.*) return 1 ;; *) return 0 ;; esac; }

# detach JOB [--limit SECONDS] COMMAND ARGS...: runs COMMAND in its own session (setsid), stdio on
# files, so the end of the connection that started it (or of the process that followed it) does not
# end it. With --limit, the job is ended (its whole process tree) if it runs longer than that.
cmd_detach() {
  job=$1; shift
  job_name "$job" || fail "not a job name: $job"
  limit=0
  if [ "${1:-}" = --limit ]; then limit=$2; shift 2; fi
  is_uint "$limit" || fail "not a number of seconds: $limit"
  j=$STATE/jobs/$job
  # (a concurrent forget may remove an empty jobs folder at any moment: make it again if so)
  # (printf, not ":": a failed redirection of a special builtin ends a POSIX shell)
  printf '' 2>/dev/null > "$j.status" || { mkdir -p "$STATE/jobs" && printf '' > "$j.status"; } || fail "cannot write $j.status"
  if command -v setsid >/dev/null 2>&1; then
    BERTH_JOB=$j BERTH_JOB_LIMIT=$limit setsid sh "$SELF" run-job "$@" </dev/null >"$j.log" 2>&1 &
  else
    BERTH_JOB=$j BERTH_JOB_LIMIT=$limit nohup sh "$SELF" run-job "$@" </dev/null >"$j.log" 2>&1 &
  fi
  echo $! > "$j.pid"
  read -r boot < /proc/sys/kernel/random/boot_id && echo "$boot" > "$j.boot"
}
cmd_run_job() {
  trap '' HUP
  limit=${BERTH_JOB_LIMIT:-0}
  if [ "$limit" -gt 0 ]; then
    ( dispatch "$@" ) &
    work=$!
    # the watchdog: a job that outlives its limit (a step that hangs past every deadline of its
    # own) is ended with everything it started, and says so
    (
      i=0
      while [ $i -lt "$limit" ] && kill -0 "$work" 2>/dev/null; do sleep 1; i=$((i + 1)); done
      if kill -0 "$work" 2>/dev/null; then
        emit "error the job did not finish within its limit of $limit s; Berth ended it"
        kill_tree KILL "$work"
      fi
    ) &
    dog=$!
    wait "$work"
    rc=$?
    kill "$dog" 2>/dev/null
  else
    ( dispatch "$@" )
    rc=$?
  fi
  # the last status line, appended in one write: followers never see a half-written exit code
  echo "rc $rc" >> "$J.status"
}
# follow JOB [FROM]: prints the job's status lines from line FROM on, as they come, ending with
# "rc N" ("rc lost" if the job died without finishing: a reboot, a kill; "rc missing": no such job).
cmd_follow() {
  job_name "$1" || { echo "rc missing"; return 0; }
  j=$STATE/jobs/$1; n=${2:-0}
  is_uint "$n" || n=0
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
      if [ "${boot:-}" != "${now_boot:-}" ] || ! kill -0 "${pid:-0}" 2>/dev/null; then
        # it may have finished between the two reads
        while IFS= read -r line; do case $line in "rc "*) echo "$line"; return 0 ;; esac; done < "$j.status"
        echo "rc lost"; return 0
      fi
    fi
    sleep 0.03
  done
}
# start JOB [--limit SECONDS] COMMAND ARGS...: detach, then follow (one round trip for the core).
cmd_start() { job=$1; shift; cmd_detach "$job" "$@" && cmd_follow "$job" 0; }
# forget JOB...: removes finished jobs' files once the core has recorded their outcome.
cmd_forget() {
  for job in "$@"; do
    job_name "$job" || continue
    grep -q '^rc ' "$STATE/jobs/$job.status" 2>/dev/null && rm -f "$STATE/jobs/$job".*
  done
  # nothing left under way: leave no trace on the server
  rmdir "$STATE/jobs" "$STATE/queue" "$STATE" 2>/dev/null
  return 0
}
