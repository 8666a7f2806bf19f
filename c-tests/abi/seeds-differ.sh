#!/usr/bin/env bash
# Two runs of one program must draw different seeds: runs COMMAND print
# twice (COMMAND is abi/seeds, natively or under a runtime) and compares
# the seed and slotmap key each run prints. Ends with `N passed, M failed`.
# Usage: seeds-differ.sh COMMAND...
set -u
first=$("$@" print | tr -d '\r') || { echo "0 passed, 1 failed"; exit 1; }
second=$("$@" print | tr -d '\r') || { echo "0 passed, 1 failed"; exit 1; }
echo "run 1: $first"
echo "run 2: $second"
passed=0 failed=0
seed() { sed -n 's/^map seed \([0-9a-f]*\),.*/\1/p' <<<"$1"; }
key() { sed -n 's/.*slotmap key \([0-9a-f]*\)$/\1/p' <<<"$1"; }
if [ -n "$(seed "$first")" ] && [ "$(seed "$first")" != "$(seed "$second")" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAILED: two runs drew the same map seed" >&2
fi
if [ -n "$(key "$first")" ] && [ "$(key "$first")" != "$(key "$second")" ]; then
  passed=$((passed + 1))
else
  failed=$((failed + 1)); echo "FAILED: two runs issued the same first slotmap key" >&2
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
