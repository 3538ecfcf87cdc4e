
# ---------------------------------------------------------------------------------- root steps --
# Root is needed only for the fast checkpoint (containerd's own client, files in Docker's data root)
# and the freeze watcher. When the ssh user is not root (a docker-group user), those steps run in a
# small helper container that sees the host's root at /host and runs the host's own binaries through
# chroot: no more power than the docker group already grants, and no image to download (the helper
# image is empty).
CHROOT=
find_chroot() { for c in /usr/sbin/chroot /usr/bin/chroot /sbin/chroot /bin/chroot; do [ -x "$c" ] && { CHROOT=$c; return 0; }; done; return 1; }
helper_name() { echo "berth-helper-$HOME_ID"; }
# helper_image: the empty image Berth's own containers run (the helper, the memory probe)
helper_image() {
  docker image inspect berth-helper:1 >/dev/null 2>&1 && return 0
  tar -cf - -T /dev/null | docker import -c 'LABEL berth.role=helper' - berth-helper:1 >/dev/null
}
# host_binds: the host's system folders, read-only, for a container of the empty image to run the
# host's own binaries
host_binds() {
  HOST_BINDS=
  for p in /usr /bin /sbin /lib /lib32 /lib64 /libx32; do [ -e "$p" ] && HOST_BINDS="$HOST_BINDS -v $p:$p:ro"; done
}
# The helper: its chroot runs the host's own binaries as root, in the host's pid namespace.
ensure_helper() {
  h=$(helper_name)
  [ "$(docker inspect -f '{{.State.Running}}' "$h" 2>/dev/null)" = true ] && return 0
  docker rm -f "$h" >/dev/null 2>&1
  find_chroot || { log "no chroot binary on this server"; return 1; }
  helper_image || return 1
  host_binds
  sleeper=$(command -v sleep)
  # shellcheck disable=SC2086
  docker run -d --name "$h" --label berth.home="$HOME_ID" --label berth.role=helper --net=none --pid=host \
    --restart=no -v /:/host $HOST_BINDS berth-helper:1 "$sleeper" infinity >/dev/null || return 1
}
# as_root COMMAND ARGS...: runs one of this script's root-* commands as root on the host. The helper
# is started only when an exec into it fails (checking first would cost a docker CLI call each time).
as_root() {
  if [ "$UID_NOW" = 0 ]; then ( dispatch "$@" ); return $?; fi
  find_chroot || { log "no chroot binary on this server"; return 90; }
  docker exec -i -e BERTH_HOME_ID="$HOME_ID" "$(helper_name)" "$CHROOT" /host /bin/sh -s "$@" < "$SELF"
  rc=$?
  # 1 is what docker answers for a missing or stopped container (root-* commands use other codes)
  [ $rc = 1 ] || return $rc
  [ "$(docker inspect -f '{{.State.Running}}' "$(helper_name)" 2>/dev/null)" = true ] && return 1
  ensure_helper || { log "cannot start the helper container"; return 90; }
  docker exec -i -e BERTH_HOME_ID="$HOME_ID" "$(helper_name)" "$CHROOT" /host /bin/sh -s "$@" < "$SELF"
}
can_root() { [ "$UID_NOW" = 0 ] || ensure_helper; }
