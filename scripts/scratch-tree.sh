#!/usr/bin/env bash
# Copies the source tree as git sees it (tracked and new files, uncommitted
# changes included; nothing ignored, so no target/ or build/) to DEST, for
# tests that follow the documented recipes where they cannot harm the tree.
# Usage: scratch-tree.sh DEST
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$1
mkdir -p "$dest"
cd "$root"
git ls-files -z --cached --others --exclude-standard \
  | xargs -0 sh -c 'for f; do [ ! -e "$f" ] || printf "%s\0" "$f"; done' _ \
  | tar --null -T - -cf - | tar -C "$dest" -xf -
