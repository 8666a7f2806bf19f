#!/usr/bin/env bash
# cargo test, followed by one `cargo: N passed, M failed` line summing its
# "test result" lines (so run-suite.sh can record it).
set -u
out=$(mktemp)
# A leading +toolchain, then `miri` if given, go before `test`.
pre=()
case "${1:-}" in +*) pre+=("$1"); shift ;; esac
case "${1:-}" in miri) pre+=(miri); shift ;; esac
cargo "${pre[@]}" test "$@" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
grep -E '^test result:' "$out" |
  sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' |
  awk '{ p += $1; f += $2 } END { printf "cargo: %d passed, %d failed\n", p, f }'
rm -f "$out"
exit "$status"
