#!/usr/bin/env bash
# Follows docs/INSTALL.md's cross-language-LTO recipe, command by command
# as written, in a scratch copy of the source tree that already holds an
# ordinary target/release/libslate.a (the one `make lib` built), and checks
# that the recipe leaves that library alone: same bytes afterwards, and
# docs/INSTALL.md's by-hand static link line still links and runs with gcc. The
# program the recipe links must run too. (The LTO build itself is what
# `make lto-test` checks for inlining.) Ends with `N passed, M failed`.
# Usage: recipe.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/checks.sh
. "$root/scripts/checks.sh"
# Runs one documented command in the scratch tree, as a user's shell would.
in_tree() { (cd "$tree" && bash -euo pipefail -c "$1"); }

lib=$root/target/release/libslate.a
[ -f "$lib" ] || { echo "recipe.sh: $lib is missing (make lib)" >&2; echo "0 passed, 1 failed"; exit 1; }
tree=$work/slate-rs
"$root/scripts/scratch-tree.sh" "$tree"
mkdir -p "$tree/target/release"
cp -p "$lib" "$tree/target/release/libslate.a"
cp "$root/examples/quickstart.c" "$tree/main.c"
unset CARGO_TARGET_DIR RUSTFLAGS CARGO_BUILD_RUSTFLAGS

export README=$root/docs/INSTALL.md # where scripts/readme-block.sh finds the blocks
recipe=$("$root/scripts/readme-block.sh" -j '**Cross-language LTO**')
by_hand_static=$("$root/scripts/readme-block.sh" -j '**By hand**' | grep -m 1 'libslate\.a')
unset README
i=0
while IFS= read -r cmd; do
  i=$((i + 1))
  check "LTO recipe, command $i: $cmd" in_tree "$cmd"
done <<<"$recipe"
check "the LTO recipe has its two commands" test "$i" -eq 2
check "the recipe's program runs" in_tree ./a.out
check "target/release/libslate.a is untouched by the recipe" cmp "$lib" "$tree/target/release/libslate.a"
rm -f "$tree/a.out"
check "docs/INSTALL.md's by-hand static line still links: $by_hand_static" in_tree "$by_hand_static"
check "and its program runs" in_tree ./a.out

checks_done
