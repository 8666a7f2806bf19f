#!/usr/bin/env bash
# The walk fences of SPEC §3c as a test, on the instruction counts of
# bench/probe.c (scripts/probe.sh): erasing the key a walk's callback was
# given costs at most 1.5x the same erase outside a walk (a sparse set's
# slotmap_sparse_erase, the map's slate_delete_bytes and slate_delete_u64;
# at 1,000 and 100,000 keys), and 100,000 slate_set_u64 cost the same,
# within 1%, whether or not another thread is parked inside a walk. Each
# pair missing from the counts fails too. Prints one line per pair and
# `walk-fence: N passed, M failed`; exits non-zero when one failed.
# Usage: walk-fence.sh [--counts FILE | libslate.a]
#   --counts FILE: check probe.sh's output saved in FILE (probe-fence.sh
#   passes its own run's); otherwise run probe.sh on the library given.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --counts ]; then
  counts=$2
else
  counts=$(mktemp)
  trap 'rm -f "$counts"' EXIT
  "$root/scripts/probe.sh" "$@" > "$counts"
fi
# Pairs: "kind phase base keys bound". kind "ratio": phase at most bound
# times base; kind "same": phase within bound (a fraction) of base.
awk '
  NR == FNR { if (NF == 5) { kind[++pairs] = $1; phase[pairs] = $2; base[pairs] = $3; keys[pairs] = $4; bound[pairs] = $5 }; next }
  { count[$1 " " $2] = $3 }
  END {
    for (i = 1; i <= pairs; i++) {
      p = phase[i] " " keys[i]; b = base[i] " " keys[i]
      if (!(p in count) || !(b in count) || count[b] <= 0) {
        printf "walk %-26s %7s  not measured (with %s)\n", phase[i], keys[i], base[i]
        failed++; continue
      }
      r = count[p] / count[b]
      if (kind[i] == "ratio") {
        ok = r <= bound[i]
        printf "walk %-26s %7s %8.1f  %.2fx %s %.1f (at most %.2fx)%s\n", phase[i], keys[i], count[p], r,
               base[i], count[b], bound[i], ok ? "" : "  FAILED"
      } else {
        d = r - 1; ok = (d < 0 ? -d : d) <= bound[i]
        printf "walk %-26s %7s %8.1f  %+.2f%% against %s %.1f (at most %.0f%% apart)%s\n", phase[i], keys[i],
               count[p], 100 * d, base[i], count[b], 100 * bound[i], ok ? "" : "  FAILED"
      }
      if (ok) passed++; else failed++
    }
    printf "walk-fence: %d passed, %d failed\n", passed, failed
    exit failed > 0
  }' - "$counts" <<'PAIRS'
ratio phase_sparse_erase_walk phase_sparse_erase 1000 1.5
ratio phase_sparse_erase_walk phase_sparse_erase 100000 1.5
ratio phase_map_delete_walk phase_map_delete 1000 1.5
ratio phase_map_delete_walk phase_map_delete 100000 1.5
ratio phase_map_u64_delete_walk phase_map_u64_delete 1000 1.5
ratio phase_map_u64_delete_walk phase_map_u64_delete 100000 1.5
same phase_u64_set_beside_walk phase_u64_set_alone 1000 0.01
PAIRS
