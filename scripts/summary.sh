#!/usr/bin/env bash
# Sums build/results.txt (one "name passed failed seconds" line per suite
# run) and prints the closing line of `make test`, after the seconds of
# each target (build/times.txt) and of the slowest suite runs.
set -u
if [ -f build/times.txt ]; then
  echo "seconds per target:"
  awk '{ printf "  %-18s %5d\n", $1, $2; t += $2 } END { printf "  %-18s %5d\n", "all", t }' build/times.txt
  echo "slowest suite runs (seconds):"
  sort -k4,4nr build/results.txt | head -n 12 | awk '{ printf "  %-40s %5d\n", $1, $4 }'
fi
awk '{ p += $2; f += $3; n++ }
     END { printf "%d suite runs\n", n; printf "total: %d passed, %d failed\n", p, f; exit (f > 0) }' build/results.txt
