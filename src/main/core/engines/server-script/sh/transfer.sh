
# ------------------------------------------------------------------------------------- transfers --
# root-copy-checkpoint SRC DEST: a checkpoint folder copied for another container on this server
# (pages hard-linked when they can be: restores only read them), in Docker's plain layout.
cmd_root_copy_checkpoint() {
  shift; xs=$1 xd=$2
  [ -s "$xs/inventory.img" ] || { log "no checkpoint at $xs"; return 3; }
  rm -rf "$xd.tmp"; mkdir -p "${xd%/*}" || return 4
  cp -R -L -l "$xs" "$xd.tmp" 2>/dev/null || { rm -rf "$xd.tmp"; cp -R -L "$xs" "$xd.tmp"; } || return 4
  rm -rf "$xd" && mv "$xd.tmp" "$xd" || return 5
  sync -f "$xd" 2>/dev/null || sync
}
# checkpoint-copy FROM NAME TO [NEWNAME]: a checkpoint of container FROM, for container TO.
cmd_checkpoint_copy() {
  shift; xfrom=$1 xn=$2 xto=$3 xnn=${4:-$2}
  inspect_container "$xfrom" || fail "container $xfrom not found"; xs=$ROOT/containers/$CID/checkpoints/$xn
  inspect_container "$xto" || fail "container $xto not found"; xd=$ROOT/containers/$CID/checkpoints/$xnn
  can_root || fail "the root helper cannot start on this server"
  as_root root-copy-checkpoint "$xs" "$xd" || fail "could not copy checkpoint $xn"
  echo "copied 1"
}

# A move's parts (root helper on both sides) go as ONE tar whose members are named after their
# own folders (diff/ a writable layer, _data/ a volume's files, NAME/ and pages-NAME/ a
# checkpoint), read by root on the source and unpacked by root straight into place on the
# target. The source keeps a copy of the stream and the target keeps what it received, so a cut
# stream continues from the first byte that did not arrive.
XFER_TAR_OPTS="--numeric-owner --xattrs --xattrs-include=* --pax-option=delete=atime,delete=ctime"
# root-xfer-tar ARG...: the tar of the members ("-C DIR MEMBER" pairs), to stdout
cmd_root_xfer_tar() {
  shift; set -f  # the arguments carry patterns (--exclude) that must reach tar as they are
  # shellcheck disable=SC2086
  tar $XFER_TAR_OPTS -cpf - "$@"
}
# root-xfer-tar-file FILE UID GID ARG...: the same, written to FILE (owned by UID:GID from the
# start, so its owner can read it while it grows); the tar's pid goes to FILE.pid first
cmd_root_xfer_tar_file() {
  shift; xf=$1 xu=$2 xg=$3; shift 3; set -f
  : > "$xf" && chown "$xu:$xg" "$xf" || return 4
  echo $$ > "$xf.pid"
  # shellcheck disable=SC2086
  exec tar $XFER_TAR_OPTS -cpf "$xf" "$@"
}
# xfer_check FILE MEMBER...: whether every member of the tar FILE may be unpacked as root, decided
# before anything is written (the stream comes from another server, and a layer holds whatever its
# session made): each lies under one of the MEMBERs being moved, with no absolute name and no
# empty, "." or ".." part; a mapped folder itself is a folder; a hard link points at an earlier
# file of the same archive; no member goes through a symbolic link of the archive; and no device
# but overlayfs's whiteout (a character device 0,0). Prints "refused WHY" (rc 3) or "incomplete
# WHY" (rc 4: tar could not read the archive to its end).
xfer_check() {
  xc_f=$1; shift
  { LC_ALL=C tar --numeric-owner --quoting-style=c -tvf "$xc_f" 2>&1; echo "tar-rc $?"; } | LC_ALL=C awk -v members=" $* " '
    function path_why(p, what,   n, parts, i, pre) {
      if (p ~ /^\//) return what " has an absolute name"
      n = split(p, parts, "/")
      if (index(members, " " parts[1] " ") == 0) return what " lies outside the parts being moved"
      pre = parts[1]
      for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == "." || parts[i] == "..") return what " has an empty, . or .. part"
        if (i > 1) {
          if (pre in links) return what " goes through the symbolic link " pre
          pre = pre "/" parts[i]
        }
      }
      return ""
    }
    /^tar-rc [0-9]+$/ { rc = $2; next }
    {
      if (bad != "") next
      q = index($0, "\"")
      if (q == 0) { if (said == "") said = $0; next }
      split(substr($0, 1, q - 1), f, " ")
      type = substr(f[1], 1, 1)
      rest = substr($0, q)
      if (!match(rest, /^"([^"\\]|\\.)*"/)) { bad = "an unreadable member: " rest; next }
      name = substr(rest, 2, RLENGTH - 2); rest = substr(rest, RLENGTH + 1)
      sub(/\/$/, "", name)
      bad = path_why(name, "member \"" name "\"")
      if (bad != "") next
      if (index(name, "/") == 0 && type != "d") { bad = "member \"" name "\" is not a folder"; next }
      if (type == "h") {
        if (!match(rest, /^ link to "([^"\\]|\\.)*"$/)) { bad = "member \"" name "\" links to an unreadable name"; next }
        target = substr(rest, 11, RLENGTH - 11)
        bad = path_why(target, "the hard link \"" name "\" -> \"" target "\"")
        if (bad == "" && !(target in files)) bad = "the hard link \"" name "\" points at \"" target "\", no earlier file of the archive"
      } else if (type == "l") {
        links[name] = 1
      } else if (type == "c") {
        if (f[3] != "0,0") bad = "member \"" name "\" is a device"
      } else if (type == "b") {
        bad = "member \"" name "\" is a device"
      } else if (type != "-" && type != "d" && type != "p") {
        bad = "member \"" name "\" is of a kind Berth does not move (" type ")"
      }
      if (bad == "" && type != "d") files[name] = 1
    }
    END {
      if (bad != "") { print "refused " bad; exit 3 }
      if (rc != 0) { print "incomplete " (said != "" ? said : "tar exit " rc); exit 4 }
      if (said != "") { print "refused tar said: " said; exit 3 }
    }'
}
# root-xfer-untar-file FILE MAP...: unpacks the tar FILE straight into place once xfer_check
# passed, each member renamed by MAP ("MEMBER DEST" pairs): diff to a writable layer, _data to a
# volume's folder, a checkpoint NAME to its folder and its pages-NAME into that same folder
# (Docker's plain layout). Nothing is written when a member is refused (rc 3) or the archive is
# cut short (rc 4); the check's line goes to stdout.
cmd_root_xfer_untar_file() {
  shift; xf=$1; shift; set -f
  xt='' xm=''
  while [ $# -ge 2 ]; do
    checkpoint_name_ok "$1" || { log "not a member name: $1"; return 2; }
    case $2 in /*) ;; *) log "not an absolute destination: $2"; return 2 ;; esac
    case $2/ in */../*|*'|'*) log "not a destination: $2"; return 2 ;; esac
    # S: a symbolic link's target is the session's own path, never renamed to the host's
    xt="$xt --transform=s|^$1\$|$2|S --transform=s|^$1/|$2/|S"
    xm="$xm $1"
    shift 2
  done
  [ -f "$xf" ] || { log "no archive at $xf"; return 2; }
  # tar reads an archive cut at a member's end as a whole one: a whole one ends in zero blocks
  xn=$(wc -c < "$xf")
  if [ $((xn % 512)) != 0 ] || [ "$xn" -lt 1024 ] || [ "$(tail -c 1024 "$xf" | tr -d '\000' | wc -c)" != 0 ]; then
    echo "incomplete the archive ends before its end marker ($xn bytes)"; return 4
  fi
  # shellcheck disable=SC2086
  xfer_check "$xf" $xm || return $?
  # only the mapped members are unpacked (the check refused any other)
  # shellcheck disable=SC2086
  tar -C / --numeric-owner --xattrs --xattrs-include=* $xt -xpf "$xf" -- $xm
}
# xfer-status STAGE: "size N" when STAGE holds a complete copy of a stream, "have N" for what arrived
# (a copy still being written, by a send whose reader went away, is waited for)
cmd_xfer_status() {
  shift; xd=$1
  i=0
  while [ -f "$xd/bundle.writing" ] && kill -0 "$(cat "$xd/bundle.writing" 2>/dev/null)" 2>/dev/null && [ $i -lt 3000 ]; do sleep 0.2; i=$((i + 1)); done
  if [ -f "$xd/bundle.size" ]; then echo "size $(cat "$xd/bundle.size")"; fi
  if [ -f "$xd/bundle.tar" ]; then echo "have $(wc -c < "$xd/bundle.tar")"; else echo "have 0"; fi
}
# xfer-send STAGE OFFSET DIR MEMBER [DIR MEMBER]...: the stream of those members from byte OFFSET;
# a complete copy in STAGE (an earlier try's) serves a retry. As root the tar streams while its
# copy is written; through the helper the copy is written first and then read (a docker exec's
# output is slower than the disk).
cmd_xfer_send() {
  shift; xd=$1 xo=$2; shift 2
  trap '' PIPE
  if [ -f "$xd/bundle.size" ]; then tail -c +$((xo + 1)) "$xd/bundle.tar"; return $?; fi
  [ "$xo" = 0 ] || fail "no complete copy to continue from"
  # pairs: "DIR MEMBER", or "-x PATTERN" to leave out (the split layout's links to its pages)
  xargs_='' xex=
  while [ $# -ge 2 ]; do
    if [ "$1" = -x ]; then xex="$xex --exclude=$2"; else xargs_="$xargs_ -C $1 $2"; fi
    shift 2
  done
  xargs_="$xex$xargs_"
  mkdir -p "$xd" || fail "cannot create $xd"
  rm -f "$xd/bundle.tar" "$xd/bundle.size" "$xd/rc"
  echo $$ > "$xd/bundle.writing"
  if [ "$(id -u)" = 0 ]; then
    # tee -p: the copy is completed even if the connection reading the stream goes away
    # shellcheck disable=SC2086
    { cmd_root_xfer_tar - $xargs_; echo $? > "$xd/rc"; } | tee -p "$xd/bundle.tar"
    [ "$(cat "$xd/rc" 2>/dev/null)" = 0 ] || { log "packing the parts failed"; return 1; }
  else
    can_root || fail "the root helper cannot start on this server"
    # root writes the copy; it is sent as it grows (a docker exec's output is slower than the disk)
    rm -f "$xd/bundle.tar.pid"
    # shellcheck disable=SC2086
    as_root root-xfer-tar-file "$xd/bundle.tar" "$(id -u)" "$(id -g)" $xargs_ & xroot=$!
    i=0
    while [ ! -s "$xd/bundle.tar.pid" ]; do
      kill -0 $xroot 2>/dev/null || { wait $xroot; fail "packing the parts failed"; }
      i=$((i + 1)); [ $i -gt 600 ] && fail "packing the parts did not start"
      sleep 0.05
    done
    # a reader that goes away does not stop the copy: the next try sends from it
    tail -c +1 --pid="$(cat "$xd/bundle.tar.pid")" -s 0.1 -f "$xd/bundle.tar"
    wait $xroot || { log "packing the parts failed"; return 1; }
    rm -f "$xd/bundle.tar.pid"
  fi
  wc -c < "$xd/bundle.tar" | tr -d ' ' > "$xd/bundle.size.tmp" && mv "$xd/bundle.size.tmp" "$xd/bundle.size"
  rm -f "$xd/bundle.writing"
}
# xfer-receive STAGE OFFSET MAP...: appends the stream to STAGE/bundle.tar from byte OFFSET (what
# arrived is kept, so a retry continues from it), then, once it is whole, has root check every
# member and unpack it straight into place (MAP: see root-xfer-untar-file).
cmd_xfer_receive() {
  shift; xd=$1 xo=$2; shift 2
  mkdir -p "$xd" || fail "cannot create $xd"
  xf=$xd/bundle.tar
  if [ "$xo" = 0 ]; then : > "$xf"; else truncate -s "$xo" "$xf" || fail "cannot continue $xf"; fi
  cat >> "$xf" || fail "the parts did not arrive whole ($(wc -c < "$xf") bytes so far)"
  if [ "$UID_NOW" = 0 ]; then
    xout=$(cmd_root_xfer_untar_file - "$xf" "$@"); xrc=$?
  else
    can_root || fail "the root helper cannot start on this server"
    xout=$(as_root root-xfer-untar-file "$xf" "$@"); xrc=$?
  fi
  case $xrc in
    0) ;;
    3) fail "refused the parts: ${xout#refused }; nothing was unpacked" ;;
    *) fail "the parts did not arrive whole ($(wc -c < "$xf") bytes so far)" ;;
  esac
  echo "bytes $(wc -c < "$xf")"
}
# xfer-done STAGE: a transfer completed: its staged copy goes
cmd_xfer_done() { shift; rm -rf "$1"; echo "removed 1"; }


# Parts staged without the root helper (a container's /workspace through the docker CLI), relayed
# file to file. Every FILE is one of this Berth's own, under $STATE/xfer.
xfer_file_ok() {
  case $1 in "$STATE"/xfer/*) ;; *) fail "not a transfer file: $1" ;; esac
  case $1/ in */../*) fail "not a transfer file: $1" ;; esac
}
# xfer-dir KEY: the folder a transfer keeps its parts in on this server
cmd_xfer_dir() { shift; job_name "$1" || fail "not a transfer key: $1"; printf 'dir %s\n' "$STATE/xfer/$1"; }
cmd_xfer_remove() { shift; job_name "$1" || fail "not a transfer key: $1"; rm -rf "${STATE:?}/xfer/$1"; echo "removed 1"; }
# part-pack FILE CONTAINER: the container's /workspace as a tar in FILE (kept from an earlier try)
cmd_part_pack() {
  shift; xfer_file_ok "$1"
  if [ ! -f "$1" ]; then
    mkdir -p "${1%/*}" || fail "cannot create ${1%/*}"
    docker cp "$2:/workspace" - > "$1.tmp" || fail "docker cp of $2's workspace failed"
    mv "$1.tmp" "$1" || fail "cannot write $1"
  fi
  echo "bytes $(wc -c < "$1")"
}
# part-unpack FILE CONTAINER: the staged workspace into the container
cmd_part_unpack() { shift; xfer_file_ok "$1"; docker cp -a - "$2:/" < "$1" || fail "docker cp into $2 failed"; echo "unpacked 1"; }
# part-have FILE SIZE: how much of a SIZE-byte part FILE already holds (a longer one is dropped)
cmd_part_have() {
  shift; xfer_file_ok "$1"; is_uint "$2" || fail "not a size: $2"
  mkdir -p "${1%/*}" || fail "cannot create ${1%/*}"
  n=0
  if [ -f "$1" ]; then n=$(wc -c < "$1"); [ "$n" -gt "$2" ] && { rm -f "$1"; n=0; }; fi
  echo "have $n"
}
# part-append FILE: appends stdin to FILE; part-read FILE OFFSET: FILE from byte OFFSET
cmd_part_append() { shift; xfer_file_ok "$1"; cat >> "$1"; }
cmd_part_read() { shift; xfer_file_ok "$1"; is_uint "$2" || fail "not an offset: $2"; tail -c +$(( $2 + 1 )) "$1"; }
cmd_part_size() { shift; xfer_file_ok "$1"; echo "bytes $(wc -c < "$1")"; }
