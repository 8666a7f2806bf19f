#!/usr/bin/env bash
# Sums the rows of fuzz/RUNS.md (`make fuzz-long` appends them): per
# target and mode, then per target, the runs, the core-hours (seconds
# times processes), the executions, the runs with a finding, and the
# first and last revision run.
# Usage: fuzz-runs.sh [RUNS.md]
set -euo pipefail
file=${1:-$(dirname "$0")/../fuzz/RUNS.md}
awk -F'|' '
  function trim(s) { gsub(/^ +| +$/, "", s); return s }
  $0 ~ /^\| *[0-9][0-9][0-9][0-9]-/ {
    rev = trim($3); t = trim($4); m = trim($5)
    jobs = trim($6) + 0; secs = trim($7) + 0; ex = trim($8) + 0
    found = trim($11) != "no finding"
    if (!(t in nmodes)) { targets[++nt] = t; nmodes[t] = 0 }
    if (!((t, m) in runs)) modes[t, ++nmodes[t]] = m
    for (i = 0; i < 2; i++) {
      k = i ? t SUBSEP "total" : t SUBSEP m
      if (!(k in runs)) first[k] = rev
      runs[k]++; core[k] += jobs * secs; execs[k] += ex; finds[k] += found; last[k] = rev
    }
  }
  END {
    printf "%-10s %-6s %5s %10s %14s %8s  %s\n", "target", "mode", "runs", "core-hours", "executions", "findings", "revisions"
    for (i = 1; i <= nt; i++) {
      t = targets[i]
      for (j = 1; j <= nmodes[t] + 1; j++) {
        m = j <= nmodes[t] ? modes[t, j] : "total"
        if (m == "total" && nmodes[t] == 1) continue
        k = t SUBSEP m
        printf "%-10s %-6s %5d %10.1f %14.0f %8d  %s..%s\n", t, m, runs[k], core[k] / 3600, execs[k], finds[k], first[k], last[k]
      }
    }
    if (nt == 0) print "no runs recorded"
  }
' "$file"
