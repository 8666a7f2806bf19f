#!/usr/bin/env bash
# Instructions per call of the hot paths (bench/probe.c), counted by
# callgrind: one line per phase, at 1,000 and 100,000 keys where the phase
# has both. Exact for a given binary; compare two builds with the same
# compiler. Usage: probe.sh [libslate.a]   (default target/release/libslate.a)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-$root/target/release/libslate.a}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
${CC:-gcc} -std=c11 -O2 -I"$root/include" "$root/bench/probe.c" "$lib" -lpthread -ldl -lm -o "$out/probe"
for n in 1000 100000; do
  # valgrind's own lines go to a log; the probe's stderr (what went wrong
  # when it exits non-zero) stays on this script's.
  valgrind --tool=callgrind --callgrind-out-file="$out/cg.$n" --log-file="$out/log.$n" \
    --collect-atstart=no --toggle-collect='phase_*' "$out/probe" "$n"
  callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.$n" 2>/dev/null |
    sed -n 's/^ *\([0-9,]*\) ([^)]*) *[^:]*:\(phase_[a-z0-9_]*\).*/\2 \1/p' | tr -d ',' |
    awk -v n="$n" '{ printf "%-20s %7s %8.1f\n", $1, n, $2 / 100000 }'
done
