
# ---------------------------------------------------------------------------------------- images --
# An image carried between servers (snapshots/image-carrier.ts): saved into a folder of this Berth's
# on the source, sent without the layers the target has, loaded there through the Docker API.
carry_dir_ok() {
  case $1 in "$STATE"/carry/*) ;; *) fail "not a carry folder: $1" ;; esac
  case $1/ in */../*) fail "not a carry folder: $1" ;; esac
}
# image-save REF: prints the folder, then "KIB NAME" per entry of the archive, ---, its manifest
cmd_image_save() {
  shift
  mkdir -p "$STATE/carry" || fail "cannot create $STATE/carry"
  d=$(mktemp -d "$STATE/carry/save.XXXXXX") || fail "cannot create a folder in $STATE/carry"
  if ! docker save "$1" | tar -x -C "$d" -f -; then rm -rf "$d"; fail "docker save of $1 failed"; fi
  echo "$d"
  (cd "$d" && du -sk -- * | tr '\t' ' ')
  echo ---
  cat "$d/manifest.json"
}
# image-send DIR ENTRY...: the entries of a saved archive, as a tar
cmd_image_send() { shift; carry_dir_ok "$1"; d=$1; shift; cd "$d" && tar -c -f - -- "$@"; }
cmd_image_saved_remove() { shift; carry_dir_ok "$1"; rm -rf "$1"; rmdir "$STATE/carry" 2>/dev/null; echo "removed 1"; }

# copy-workspace FROM TO: /workspace of one container into another on this engine, keeping owners
# and modes (either may be stopped or never started); prints "bytes N" (the tar's size)
cmd_copy_workspace() {
  shift
  mkdir -p "$STATE/carry" || fail "cannot create $STATE/carry"
  t=$(mktemp -d "$STATE/carry/ws.XXXXXX") || fail "cannot create a folder in $STATE/carry"
  if docker cp "$1:/workspace" - > "$t/ws.tar" && docker cp -a - "$2:/" < "$t/ws.tar"; then
    echo "bytes $(wc -c < "$t/ws.tar")"; rm -rf "$t"
  else
    rm -rf "$t"; fail "copying the workspace of $1 failed"
  fi
}
# sync-all: flushes every file system of this server (what was just written survives a power cut)
cmd_sync_all() { shift; sync; echo "synced 1"; }
