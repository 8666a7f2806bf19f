#!/usr/bin/env bash
# Runs one test program, shows its output, and records its closing
# `N passed, M failed` line in build/results.txt for the final summary,
# with the seconds it took.
# Usage: run-suite.sh NAME COMMAND...
set -u
name=$1; shift
mkdir -p build
out=$(mktemp)
start=$(date +%s)
"$@" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
rm -f "$out"
secs=$(( $(date +%s) - start ))
if [ -z "$line" ]; then
  echo "$name: no summary line (exit $status)"
  echo "$name 0 1 $secs" >> build/results.txt
  exit 1
fi
p=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/')
f=$(echo "$line" | sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/')
echo "$name $p $f $secs" >> build/results.txt
[ "$status" -eq 0 ] && [ "$f" -eq 0 ] || { echo "$name FAILED (exit $status)"; exit 1; }
