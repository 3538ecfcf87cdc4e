
# ------------------------------------------------------------------------------------------ diff --
# What changed between two snapshots, computed where their committed layers live (snapshots/diff.ts).
# A snapshot is an image (the session's writable layer committed on top of its image) and a copy of
# its workspace volume. The layers both images share are skipped; what is left of each stack is
# merged as overlayfs would (the upper layer wins, a 0/0 character device is a deletion), then the two
# sides are compared by type, size and modification time. Workspace files are listed as /workspace/...
# The list is kept in $STATE/diff by the images' and volumes' ids (snapshots never change), so the
# pages after the first, and the same diff asked again, read a file.
# Each line: "STATUS TYPE SIZE<TAB>PATH", STATUS A (added), M (changed), D (deleted), TYPE a find(1)
# %y letter. Names with a newline are left out (they cannot be one line of this list).
NL='
'

# diff_layers ID: the image's layer folders, top first, colon-separated, in DIFF_LAYERS
diff_layers() {
  dl=$(docker image inspect -f '{{index .GraphDriver.Data "UpperDir"}}|{{index .GraphDriver.Data "LowerDir"}}' "$1" 2>/dev/null) || return 1
  case $dl in *"$NL"*|'|'*) return 1 ;; esac
  DIFF_LAYERS=${dl%%|*}
  [ -n "${dl#*|}" ] && DIFF_LAYERS="$DIFF_LAYERS:${dl#*|}"
  return 0
}
# diff_volume NAME: the volume's folder (or - when NAME is -), in DIFF_VOLUME
diff_volume() {
  DIFF_VOLUME=-
  [ "$1" = - ] && return 0
  DIFF_VOLUME=$(docker volume inspect -f '{{.Mountpoint}}' "$1" 2>/dev/null) || return 1
  case $DIFF_VOLUME in /*) ;; *) return 1 ;; esac
}
# diff_split A_LAYERS B_LAYERS: drops the layers both stacks end with, into DIFF_A, DIFF_B, DIFF_COMMON
diff_split() {
  DIFF_A=$1; DIFF_B=$2; DIFF_COMMON=
  while [ -n "$DIFF_A" ] && [ -n "$DIFF_B" ]; do
    la=${DIFF_A##*:}; lb=${DIFF_B##*:}
    [ "$la" = "$lb" ] || break
    DIFF_COMMON="$la${DIFF_COMMON:+:$DIFF_COMMON}"
    case $DIFF_A in *:*) DIFF_A=${DIFF_A%:*} ;; *) DIFF_A= ;; esac
    case $DIFF_B in *:*) DIFF_B=${DIFF_B%:*} ;; *) DIFF_B= ;; esac
  done
}

# diff-list A_IMAGE B_IMAGE A_VOLUME|- B_VOLUME|- OFFSET LIMIT: "total N", "cached yes|no", then
# LIMIT lines of the list from OFFSET
cmd_diff_list() {
  shift
  is_uint "$5" && is_uint "$6" || fail "not a page: $5 $6"
  ia=$(docker image inspect -f '{{.Id}}' "$1" 2>/dev/null) || fail "no image $1 on this server"
  ib=$(docker image inspect -f '{{.Id}}' "$2" 2>/dev/null) || fail "no image $2 on this server"
  key=$(printf '%s\n' "$ia" "$ib" "$3" "$4" | cksum | tr ' ' -)
  list=$STATE/diff/$key.list
  cached=yes
  if [ ! -f "$list" ]; then
    cached=no
    diff_layers "$1" || fail "cannot read the layers of $1"; la=$DIFF_LAYERS
    diff_layers "$2" || fail "cannot read the layers of $2"; lb=$DIFF_LAYERS
    diff_volume "$3" || fail "no volume $3 on this server"; va=$DIFF_VOLUME
    diff_volume "$4" || fail "no volume $4 on this server"; vb=$DIFF_VOLUME
    diff_split "$la" "$lb"
    mkdir -p "$STATE/diff" || fail "cannot create $STATE/diff"
    as_root root-diff "${DIFF_A:--}" "${DIFF_B:--}" "${DIFF_COMMON:--}" "$va" "$vb" > "$list.$$" || { rm -f "$list.$$"; fail "listing the changes failed"; }
    mv "$list.$$" "$list"
    # the newest 50 lists are kept
    # shellcheck disable=SC2012 # names are cksum-dash-size
    ls -t "$STATE/diff" | sed -n '51,$p' | while read -r old; do rm -f "$STATE/diff/$old"; done
  fi
  echo "total $(wc -l < "$list")"
  echo "cached $cached"
  echo ---
  [ "$6" -gt 0 ] && sed -n "$(( $5 + 1 )),$(( $5 + $6 ))p" "$list"
  return 0
}

# root-diff A_LAYERS B_LAYERS COMMON_LAYERS A_VOLUME B_VOLUME (- for none): the whole list
cmd_root_diff() {
  shift
  {
    diff_walk a "$1" /
    diff_walk b "$2" /
    [ "$4" != - ] && diff_walk a "$4" /workspace/
    [ "$5" != - ] && diff_walk b "$5" /workspace/
  } | diff_merge | diff_resolve "$3" | LC_ALL=C sort -t "$(printf '\t')" -k2,2
}
# diff_walk SIDE LAYERS PREFIX: "SIDE DEPTH TYPE SIZE MTIME<TAB>PATH" of every entry in each layer
diff_walk() {
  [ "$2" = - ] && return 0
  dw_depth=0
  dw_rest=$2
  while [ -n "$dw_rest" ]; do
    dw_l=${dw_rest%%:*}
    case $dw_rest in *:*) dw_rest=${dw_rest#*:} ;; *) dw_rest= ;; esac
    [ -d "$dw_l" ] && find "$dw_l" -mindepth 1 ! -name "*$NL*" -printf "$1 $dw_depth %y %s %T@\t$3%P\n" 2>/dev/null
    dw_depth=$(( dw_depth + 1 ))
  done
}
# The topmost entry of each side wins; then each path is compared. A path on one side only is
# decided by whether the shared layers have it: "? IF_THERE IF_NOT TYPE SIZE<TAB>PATH".
diff_merge() {
  awk -F '\t' '
    { split($1, f, " "); p = substr($0, index($0, "\t") + 1); k = f[1] SUBSEP p
      if (!(k in depth) || f[2] < depth[k]) { depth[k] = f[2]; typ[k] = f[3]; size[k] = f[4]; mt[k] = f[5] }
      seen[p] = 1 }
    function gone(k) { return !(k in typ) || (typ[k] == "c" && size[k] == 0) }
    END {
      for (p in seen) {
        a = "a" SUBSEP p; b = "b" SUBSEP p
        if (gone(b)) {
          if (gone(a)) { if ((b in typ) && !(a in typ)) printf "? D - %s %s\t%s\n", "f", 0, p; continue }
          if (typ[a] == "d") continue
          if (p ~ /^\/workspace\//) printf "D %s %s\t%s\n", typ[a], size[a], p
          else if (b in typ) printf "D %s %s\t%s\n", typ[a], size[a], p
          else printf "? M D %s %s\t%s\n", typ[a], size[a], p
        } else if (gone(a)) {
          if (typ[b] == "d" && !(a in typ)) continue
          if (p ~ /^\/workspace\//) printf "A %s %s\t%s\n", typ[b], size[b], p
          else printf "? M A %s %s\t%s\n", typ[b], size[b], p
        } else if (typ[b] != "d" && (typ[a] != typ[b] || size[a] != size[b] || mt[a] != mt[b])) {
          printf "M %s %s\t%s\n", typ[b], size[b], p
        }
      }
    }'
}
# diff_resolve COMMON_LAYERS: settles the "?" lines by looking in the shared layers (a whiteout there
# counts as absent; a whited-out path the shared layers never had is no change at all)
diff_resolve() {
  dr_common=$1
  tab=$(printf '\t')
  while IFS= read -r line; do
    case $line in
      '? '*)
        head=${line%%"$tab"*}; p=${line#*"$tab"}
        set -f
        # shellcheck disable=SC2086 # the head is four words
        set -- $head
        set +f
        there=
        if [ "$dr_common" != - ]; then
          rest=$dr_common
          while [ -n "$rest" ]; do
            l=${rest%%:*}
            case $rest in *:*) rest=${rest#*:} ;; *) rest= ;; esac
            if [ -e "$l$p" ] || [ -L "$l$p" ]; then
              [ -c "$l$p" ] || there=1
              break
            fi
          done
        fi
        if [ -n "$there" ]; then st=$2; else st=$3; fi
        [ "$st" = - ] && continue
        printf '%s %s %s\t%s\n' "$st" "$4" "$5" "$p"
        ;;
      *) printf '%s\n' "$line" ;;
    esac
  done
}

# diff-file A_IMAGE B_IMAGE A_VOLUME|- B_VOLUME|- PATH MAX_BYTES: a unified diff of one file of the
# list between the two snapshots ("binary", "large N" or "diff" then the diff's lines)
cmd_diff_file() {
  shift
  is_uint "$6" || fail "not a size: $6"
  case $5 in /*) ;; *) fail "not a path: $5" ;; esac
  case "$5/" in */../*|*/./*|*"$NL"*) fail "not a path: $5" ;; esac
  diff_layers "$1" || fail "cannot read the layers of $1"; la=$DIFF_LAYERS
  diff_layers "$2" || fail "cannot read the layers of $2"; lb=$DIFF_LAYERS
  diff_volume "$3" || fail "no volume $3 on this server"; va=$DIFF_VOLUME
  diff_volume "$4" || fail "no volume $4 on this server"; vb=$DIFF_VOLUME
  as_root root-diff-file "$la" "$lb" "$va" "$vb" "$5" "$6"
}
# diff_find LAYERS VOLUME PATH: the folder whose copy of PATH a snapshot shows, in DF_BASE (- if none)
diff_find() {
  DF_BASE=-
  case $3 in
    /workspace/*) [ "$2" != - ] && DF_BASE=$2 && DF_REL=${3#/workspace} ; return 0 ;;
  esac
  DF_REL=$3
  rest=$1
  while [ -n "$rest" ]; do
    l=${rest%%:*}
    case $rest in *:*) rest=${rest#*:} ;; *) rest= ;; esac
    if [ -e "$l$3" ] || [ -L "$l$3" ]; then
      [ -c "$l$3" ] || DF_BASE=$l
      return 0
    fi
  done
}
# diff_safe BASE REL: the real file BASE/REL when it is a regular file inside BASE (the session named
# and wrote it: a link must not lead out), in DS_FILE, or /dev/null
diff_safe() {
  DS_FILE=/dev/null
  [ "$1" = - ] && return 0
  f=$(realpath -e -- "$1$2" 2>/dev/null) || return 0
  b=$(realpath -e -- "$1" 2>/dev/null) || return 0
  case $f in "$b"/*) ;; *) return 0 ;; esac
  [ -f "$f" ] && [ ! -L "$f" ] && DS_FILE=$f
  return 0
}
cmd_root_diff_file() {
  shift
  diff_find "$1" "$3" "$5"; diff_safe "$DF_BASE" "$DF_REL"; fa=$DS_FILE
  diff_find "$2" "$4" "$5"; diff_safe "$DF_BASE" "$DF_REL"; fb=$DS_FILE
  for f in "$fa" "$fb"; do
    s=$(wc -c < "$f")
    [ "$s" -gt "$6" ] && { echo "large $s"; return 0; }
  done
  if [ "$(cat "$fa" "$fb" | tr -d -c '\000' | wc -c)" -gt 0 ]; then echo binary; return 0; fi
  echo diff
  diff -u --label "a$5" --label "b$5" -- "$fa" "$fb"
  [ $? -le 1 ]
}
