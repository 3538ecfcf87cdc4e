# Berth's supervisor: PID 1 of a session whose image has its own main process (its ENTRYPOINT and
# CMD). It runs that process, restarts it by the session's policy when it stops by itself, and
# notes each stop in a small status file that Berth reads to report it; once nothing is left to
# run it keeps the session up for terminals and commands, like Berth's keep-alive.
# usage: sh -c "$this" berth-main POLICY WORKDIR -- COMMAND...
policy=$1
workdir=$2
shift 3
status=/tmp/.berth-main
: > "$status" 2>/dev/null || true
child=
stopping=
stop() {
  stopping=1
  if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; fi
}
trap stop TERM INT

oom_kills() {
  # the session's own cgroup counts the kernel's out-of-memory kills (cgroup v2, else v1)
  n=$(sed -n 's/^oom_kill //p' /sys/fs/cgroup/memory.events 2>/dev/null)
  if [ -z "$n" ]; then n=$(sed -n 's/^oom_kill //p' /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null); fi
  echo "${n:-0}"
}

delay=1
while [ -z "$stopping" ]; do
  started=$(date +%s)
  (cd "$workdir" 2>/dev/null || true; exec "$@") &
  child=$!
  wait "$child"
  code=$?
  # a trapped signal ends the wait early: wait again until the process is really gone
  while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    code=$?
  done
  child=
  if [ -n "$stopping" ]; then exit 0; fi
  printf 'exit %s %s %s\n' "$code" "$(date +%s)" "$(oom_kills)" >> "$status" 2>/dev/null
  case $policy in
    always) ;;
    on-failure) if [ "$code" -eq 0 ]; then break; fi ;;
    *) break ;;
  esac
  # back off like Docker's restart policies: 1 s, doubling to a minute, again from 1 s after a good run
  if [ $(($(date +%s) - started)) -ge 60 ]; then delay=1; fi
  sleep "$delay" &
  child=$!
  wait "$child"
  child=
  if [ "$delay" -lt 60 ]; then delay=$((delay * 2)); fi
done
if [ -n "$stopping" ]; then exit 0; fi
printf 'stopped\n' >> "$status" 2>/dev/null
trap 'exit 0' TERM INT
while :; do
  sleep 3600 &
  wait $!
done
