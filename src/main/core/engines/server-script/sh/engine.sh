
# ----------------------------------------------------------------------------------- engine info --
# Fields of a container, one per variable: CID STATUS PID STARTED UPPER ROOT MOUNTS(one per line)
inspect_container() {
  out=$(docker inspect -f '{{.Id}}|{{.State.Status}}|{{.State.Pid}}|{{.State.StartedAt}}|{{index .GraphDriver.Data "UpperDir"}}' "$1" 2>/dev/null) || return 1
  IFS='|' read -r CID STATUS PID STARTED UPPER <<EOF
$out
EOF
  case $UPPER in
    */overlay2/*/diff) ROOT=${UPPER%/overlay2/*} ;;
    *) ROOT=$(docker info -f '{{.DockerRootDir}}') ;;
  esac
  return 0
}
mount_sources() { docker inspect -f '{{range .Mounts}}{{println .Source}}{{end}}' "$1" 2>/dev/null; }
# sync_paths PATH...: syncfs (sync -f) of the filesystem of each path: everything dirty on it is
# written, checkpoint files included. Non-root users may not open paths inside Docker's data root:
# their filesystem is reached through its mount point instead.
sync_paths() {
  for p in "$@"; do
    [ -n "$p" ] || continue
    sync -f "$p" 2>/dev/null && continue
    mp=$(df -P "$p" 2>/dev/null | awk 'NR == 2 {print $6}')
    if [ -n "$mp" ] && sync -f "$mp" 2>/dev/null; then continue; fi
    sync
  done
}
# The filesystems holding a container's files: its writable layer (in the data root) and its volumes.
# shellcheck disable=SC2046 # one volume path per word
sync_container_fs() { sync_paths "$2" $(mount_sources "$1" | tr '\n' ' '); }
