#!/usr/bin/env bash
# The instruction counts of the hot paths as a test: runs scripts/probe.sh
# (callgrind; every map's seed pinned, so the counts repeat exactly for one
# binary) and fails each phase whose count is more than 3% above its
# ceiling in bench/probe-ceilings.txt, and each phase of that file that no
# longer runs. A change that lowers a count lowers its ceiling in the same
# commit (`probe-fence.sh --write` prints the file for the current counts).
# Then scripts/walk-fence.sh holds the same counts to the walk fences of
# SPEC §3c (ratios between phases, not ceilings). Prints each part's
# `NAME: N passed, M failed` and last the sum of both.
# Usage: probe-fence.sh [--write] [libslate.a]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ceilings=$root/bench/probe-ceilings.txt
write=0
if [ "${1:-}" = --write ]; then
  write=1
  shift
fi
counts=$(mktemp)
ceiling_summary=$(mktemp)
walk_summary=$(mktemp)
trap 'rm -f "$counts" "$ceiling_summary" "$walk_summary"' EXIT
"$root/scripts/probe.sh" "$@" > "$counts"
if [ "$write" -eq 1 ]; then
  sed -n '1,/^$/p' "$ceilings"
  sort -k1,1 -k2,2n "$counts" | awk '{ printf "%-22s %7s %8s\n", $1, $2, $3 }'
  exit 0
fi
# Ceilings: "phase keys count" lines after the header (comments, a blank
# line). Counts: the same shape.
status=0
awk -v slack=1.03 '
  NR == FNR { if ($0 ~ /^[a-z]/) { ceiling[$1 " " $2] = $3 }; next }
  { seen[$1 " " $2] = 1
    if (!(($1 " " $2) in ceiling)) {
      printf "probe %-22s %7s %8.1f  no ceiling (add it to bench/probe-ceilings.txt)\n", $1, $2, $3
      failed++; next
    }
    limit = ceiling[$1 " " $2] * slack
    if ($3 > limit) {
      printf "probe %-22s %7s %8.1f  above its ceiling %.1f (+3%% = %.1f)\n", $1, $2, $3, ceiling[$1 " " $2], limit
      failed++
    } else {
      printf "probe %-22s %7s %8.1f  ceiling %.1f\n", $1, $2, $3, ceiling[$1 " " $2]
      passed++
    }
  }
  END {
    for (p in ceiling) if (!(p in seen)) { printf "probe %s: in the ceilings, not measured\n", p; failed++ }
    printf "ceilings: %d passed, %d failed\n", passed, failed
    exit failed > 0
  }' "$ceilings" "$counts" | tee "$ceiling_summary" || status=1
"$root/scripts/walk-fence.sh" --counts "$counts" | tee "$walk_summary" || status=1
# The sum, last, for scripts/run-suite.sh.
cat "$ceiling_summary" "$walk_summary" |
  sed -n -E 's/^(ceilings|walk-fence): ([0-9]+) passed, ([0-9]+) failed$/\2 \3/p' |
  awk '{ p += $1; f += $2; n++ }
       END { if (n != 2) { f++; print "probe-fence: a part printed no summary" }
             printf "%d passed, %d failed\n", p, f }'
exit "$status"
