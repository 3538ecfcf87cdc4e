// The command a session's container runs when its image has no main process of its own: PID 1 that
// waits, and ends on TERM. On its own (no shell-file imports) so the benchmarks can load it with tsx.
export const KEEPALIVE = ['/bin/sh', '-c', "trap 'exit 0' TERM INT; while :; do sleep 3600 & wait $!; done"]
