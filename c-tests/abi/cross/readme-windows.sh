#!/usr/bin/env bash
# Follows docs/INSTALL.md's Windows recipe, command by command as written: the
# mingw-w64 build of the quick start in a scratch copy of the source tree,
# then the wine 8 steps (the ProcessPrng stand-in in a fresh wine prefix)
# and the program, whose output must be examples/expected/quickstart.txt.
# Ends with `N passed, M failed`.
# Usage: readme-windows.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
export WINEPREFIX=$work/wineprefix WINEDEBUG=-all
cleanup() {
  [ ! -d "$WINEPREFIX" ] || wineserver -k 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=scripts/checks.sh
. "$root/scripts/checks.sh"
tree=$work/slate-rs
"$root/scripts/scratch-tree.sh" "$tree"
cp "$root/examples/quickstart.c" "$tree/main.c"
unset CARGO_TARGET_DIR
# Runs one documented command in the scratch tree, as a user's shell would.
in_tree() { (cd "$tree" && bash -euo pipefail -c "$1"); }

i=0
for marker in '**Windows with mingw-w64**' '**Under wine 8**'; do
  commands=$(README=$root/docs/INSTALL.md "$root/scripts/readme-block.sh" -j "$marker") ||
    { check "docs/INSTALL.md's block after $marker" false; continue; }
  while IFS= read -r cmd; do
    i=$((i + 1))
    case "$cmd" in
      # The program: its output, without the console's carriage returns.
      wine\ *) check "Windows recipe, command $i: $cmd" \
                 bash -o pipefail -c 'cd "$1" && eval "$2" | tr -d "\r" > "$3"' _ "$tree" "$cmd" "$work/main.out"
               check "its output is examples/expected/quickstart.txt" diff -u "$root/examples/expected/quickstart.txt" "$work/main.out" ;;
      *) check "Windows recipe, command $i: $cmd" in_tree "$cmd" ;;
    esac
  done <<<"$commands"
done
check "the recipe ends in running main.exe under wine" test -s "$work/main.out"
checks_done
