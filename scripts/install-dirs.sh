#!/usr/bin/env bash
# The directories of `make install`, so that `make uninstall` removes those
# the install created, and only those.
# Usage: install-dirs.sh record RECORD DIR...
#          appends to RECORD each DIR and each parent of one that does not
#          exist yet (call it before creating them)
#        install-dirs.sh remove RECORD DIR...
#          removes, deepest first, each DIR or parent of one that RECORD
#          lists and that is empty, and drops it from RECORD
# Paths are compared as written, DESTDIR included: uninstall with the
# variables the install had.
set -euo pipefail
mode=$1 record=$2; shift 2
# Each DIR and its parents, one a line.
lineage() {
  local d
  for d in "$@"; do
    while :; do
      printf '%s\n' "$d"
      case "$d" in /|.|'') break ;; esac
      d=$(dirname "$d")
    done
  done
}
case "$mode" in
  record)
    mkdir -p "$(dirname "$record")"
    lineage "$@" | sort -u | while IFS= read -r d; do [ -d "$d" ] || printf '%s\n' "$d"; done >>"$record"
    ;;
  remove)
    [ -f "$record" ] || exit 0
    # Longest first: a directory before its parent.
    lineage "$@" | sort -u | { grep -Fxf - "$record" || true; } | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2- \
      | while IFS= read -r d; do rmdir "$d" 2>/dev/null || true; done
    # Keep only what still exists (once per path).
    kept=$(while IFS= read -r d; do [ ! -d "$d" ] || printf '%s\n' "$d"; done <"$record" | sort -u)
    if [ -n "$kept" ]; then printf '%s\n' "$kept" >"$record"; else rm -f "$record"; fi
    ;;
  *) echo "install-dirs.sh: record or remove, not '$mode'" >&2; exit 2 ;;
esac
