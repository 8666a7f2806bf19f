#!/usr/bin/env bash
# The size limits the codebase keeps (so that a newcomer reads it in an
# afternoon): no file of the crate (`src/`) over 800 lines; `src/lib.rs`, the design, at
# most 250; `src/ffi` at most 2,200 lines besides the snapshot shims
# (`ffi/snapshot.rs`); README.md at most 3,500 words; BENCHMARKS.md at
# most 400 lines; no import cycle between the crate's top-level modules
# (scripts/cycles.py). Prints each breach and fails when there is one.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=0
over() { echo "limits: $1" >&2; bad=1; }
while read -r n f; do
  [ "$f" = total ] || [ "$n" -le 800 ] || over "$f has $n lines (at most 800)"
done < <(find src -name '*.rs' -print0 | xargs -0 wc -l)
n=$(wc -l < src/lib.rs); [ "$n" -le 250 ] || over "src/lib.rs has $n lines (at most 250)"
n=$(find src/ffi -name '*.rs' ! -name snapshot.rs -print0 | xargs -0 cat | wc -l)
[ "$n" -le 2200 ] || over "src/ffi has $n lines besides ffi/snapshot.rs (at most 2,200)"
n=$(wc -w < README.md); [ "$n" -le 3500 ] || over "README.md has $n words (at most 3,500)"
n=$(wc -l < BENCHMARKS.md); [ "$n" -le 400 ] || over "BENCHMARKS.md has $n lines (at most 400)"
python3 scripts/cycles.py || bad=1
[ "$bad" -eq 0 ] && echo "limits: held"
