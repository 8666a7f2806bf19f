#!/usr/bin/env bash
# Follows docs/INSTALL.md's by-hand link lines (from the source tree) as
# written, in a scratch copy of the source tree after `make` (which builds
# the library, as on a fresh machine): each links the quick start (the C++ line examples/ecs.cpp),
# and the program must print what examples/expected/ holds, with no
# LD_LIBRARY_PATH. Ends with `N passed, M failed`.
# Usage: by-hand.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/checks.sh
. "$root/scripts/checks.sh"
tree=$work/slate-rs
"$root/scripts/scratch-tree.sh" "$tree"
cp "$root/examples/quickstart.c" "$tree/main.c"
cp "$root/examples/ecs.cpp" "$tree/main.cpp"
unset CARGO_TARGET_DIR
check "make (the library)" make -C "$tree" --no-print-directory
# Runs one documented command in the scratch tree, as a user's shell would.
in_tree() { (cd "$tree" && bash -euo pipefail -c "$1"); }

i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  case "$cmd" in *main.cpp*) expected=ecs-cpp ;; *) expected=quickstart ;; esac
  rm -f "$tree/a.out"
  check "by-hand line $i: $cmd" in_tree "$cmd"
  check "its program prints examples/expected/$expected.txt" \
    bash -o pipefail -c 'env -u LD_LIBRARY_PATH "$1/a.out" | diff -u "$2" -' _ "$tree" "$root/examples/expected/$expected.txt"
done < <(README=$root/docs/INSTALL.md "$root/scripts/readme-block.sh" -j '**By hand**')
check "docs/INSTALL.md's three by-hand lines" test "$i" -eq 3
checks_done
