#!/usr/bin/env bash
# Sums build/results.txt (one "name passed failed" line per suite run) and
# prints the closing line of `make test`.
set -u
awk '{ p += $2; f += $3; n++ }
     END { printf "%d suite runs\n", n; printf "total: %d passed, %d failed\n", p, f; exit (f > 0) }' build/results.txt
