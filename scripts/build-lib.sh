#!/usr/bin/env bash
# Builds the library (libslate.a, libslate.so and the rlib) in release mode
# and records the system libraries a program linking the static library
# needs, as rustc reports them, in <output dir>/native-static-libs: the
# source of slate.pc's Libs.private and of the CMake package's static
# target. cargo replays the report when nothing needs rebuilding.
# Then scripts/localize-archive.sh rewrites libslate.a, where it can, into
# one object that defines only slate*/slotmap* and carries no LLVM bitcode.
# Usage: build-lib.sh [cargo options, e.g. --target TRIPLE]
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/release
# The target: the host's, unless --target names another.
target=$(rustc -vV | sed -n 's/^host: //p')
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --target) target=${args[i + 1]} out=target/$target/release ;;
    --target=*) target=${args[i]#--target=} out=target/$target/release ;;
  esac
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
${CARGO:-cargo} rustc --release --lib "$@" -- --print=native-static-libs 2>&1 | tee "$log" || status=$?
[ "$status" -eq 0 ] || exit "$status"
if ! grep -q '^note: native-static-libs:' "$log"; then
  echo "build-lib.sh: rustc reported no native-static-libs" >&2
  exit 1
fi
# (Empty where the target needs nothing beyond its C library: Emscripten.)
libs=$(sed -n 's/^note: native-static-libs: *//p' "$log" | tail -n 1)
printf '%s\n' "$libs" > "$out/native-static-libs"
scripts/localize-archive.sh "$target" "$out/libslate.a"
# Which archive this is: a `cargo build --release` by hand later puts
# rustc's own in its place, which the Makefile tells by this.
if [ -f "$out/libslate.a" ]; then stat -c %i "$out/libslate.a" >"$out/libslate.a.inode"; fi
