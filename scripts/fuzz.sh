#!/usr/bin/env bash
# Builds and runs one fuzz target (fuzz/fuzz_targets/TARGET.rs) under
# libFuzzer with AddressSanitizer for SECONDS, starting from the seeds in
# fuzz/seeds/TARGET, the committed corpus in fuzz/corpus/TARGET (when
# there is one; read only) and the corpus of earlier runs in
# build/fuzz/corpus/TARGET; a finding's input lands in
# build/fuzz/artifacts/TARGET/. Prints libFuzzer's final statistics
# (executions, coverage) and `1 passed, 0 failed` when nothing was found.
#
# FUZZ_JOBS=N runs N libFuzzer processes at once, each for SECONDS,
# sharing the corpus of earlier runs (each reads what the others add);
# their executions add up. FUZZ_LOG=FILE appends the run's row to the
# table that ends FILE (fuzz/RUNS.md, `make fuzz-long`): date, the
# revision built, target, SNAPSHOT_FUZZ_MODE (`all` unset), jobs,
# seconds, the executions libFuzzer counted (the sum of each process's
# stat::number_of_executed_units), the coverage of the corpus afterwards
# (libFuzzer's cov and ft over the three corpus directories) and the
# result. Only a build of a committed revision is recorded: with
# uncommitted changes to tracked files the run is made but not recorded.
#
# The build is the one `cargo fuzz build -a` makes (the same rustc flags:
# sanitizer coverage, ASan, --cfg fuzzing, one codegen unit), plus
# overflow checks, without needing cargo-fuzz installed: developers with
# it may run `cd fuzz && cargo +nightly fuzz run TARGET` instead.
# Usage: fuzz.sh TARGET SECONDS
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=$1 seconds=$2
jobs=${FUZZ_JOBS:-1}
record=${FUZZ_LOG:-}
triple=x86_64-unknown-linux-gnu
corpus=$root/build/fuzz/corpus/$target
artifacts=$root/build/fuzz/artifacts/$target
mkdir -p "$corpus" "$artifacts"
if [ -n "$record" ]; then
  rev=$(git -C "$root" rev-parse --short=12 HEAD)
  if [ -n "$(git -C "$root" status --porcelain --untracked-files=no -- . ":(exclude)${record#"$root"/}")" ]; then
    echo "fuzz $target: uncommitted changes to tracked files; this run will not be recorded in $record"
    record=
  fi
fi
flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares -Cllvm-args=-sanitizer-coverage-stack-depth"
flags+=" -Cllvm-args=-simplifycfg-branch-fold-threshold=0 --cfg fuzzing -Zsanitizer=address"
flags+=" -Cdebug-assertions -Coverflow-checks -Ccodegen-units=1"
RUSTFLAGS=$flags cargo +nightly build --quiet --release --manifest-path "$root/fuzz/Cargo.toml" \
  --target "$triple" --bin "$target" --config 'profile.release.debug="line-tables-only"' || {
  echo "fuzz $target: does not build"
  echo "0 passed, 1 failed"
  exit 1
}
asan=detect_odr_violation=0:allocator_may_return_null=1:detect_leaks=1
# Snapshot loads must allocate in proportion to their input and run
# fast: there one allocation of 64 MiB (the target's own and the
# library's count alike, so the target keeps what it builds small), an
# RSS of 512 MiB or an input that takes 2 s is a finding. ASan's
# quarantine of freed blocks (256 MiB by default) counts in the RSS; 64
# MiB still holds every block one input frees (an input allocates far
# less), so a use after free is still caught.
limits=(-rss_limit_mb=4096)
if [ "$target" = snapshot ]; then
  limits=(-rss_limit_mb=512 -malloc_limit_mb=64 -max_len=65536 -timeout=2)
  asan+=:quarantine_size_mb=64
fi
dirs=("$corpus" "$root/fuzz/seeds/$target")
[ -d "$root/fuzz/corpus/$target" ] && dirs+=("$root/fuzz/corpus/$target")
bin=$root/fuzz/target/$triple/release/$target
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
# The structures' own checks are the oracle: a failed assertion, a crash,
# a leak or an ASan report is a finding. Allocations no memory can hold
# return NULL, as from malloc.
start=$(date +%s)
pids=()
for ((j = 0; j < jobs; j++)); do
  ASAN_OPTIONS=$asan "$bin" "${dirs[@]}" \
    -max_total_time="$seconds" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "${limits[@]}" >"$logdir/$j.log" 2>&1 &
  pids+=($!)
done
status=0 codes=()
for ((j = 0; j < jobs; j++)); do
  wait "${pids[j]}"
  codes+=($?)
  [ "${codes[j]}" -ne 0 ] && status=${codes[j]}
done
elapsed=$(($(date +%s) - start))
executions=0
for ((j = 0; j < jobs; j++)); do
  log=$logdir/$j.log
  grep -E '^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log"
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  executions=$((executions + ${n:-0}))
done
[ "$jobs" -gt 1 ] && echo "executions of the $jobs processes: $executions"
found=$(cat "$logdir"/*.log | sed -n 's/.*Test unit written to //p' | xargs -r -n1 basename | paste -sd' ')
if [ -n "$record" ]; then
  # The coverage of the corpus the run leaves: one pass over its inputs.
  cov=$(ASAN_OPTIONS=$asan "$bin" "${dirs[@]}" -runs=0 "${limits[@]}" 2>&1 |
    sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' | tail -n 1)
  [ -n "$cov" ] || cov="- -"
  result="no finding"
  [ "$status" -ne 0 ] && result="FINDING (exit $status) ${found:-no input saved}"
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' \
    "$(date -u +%Y-%m-%dT%H:%MZ)" "$rev" "$target" "${SNAPSHOT_FUZZ_MODE:-all}" "$jobs" \
    "$elapsed" "$executions" "${cov% *}" "${cov#* }" "$result" >>"$record"
  echo "recorded in $record: $executions executions, corpus cov ${cov% *} ft ${cov#* }"
fi
if [ "$status" -ne 0 ]; then
  for ((j = 0; j < jobs; j++)); do
    [ "${codes[j]}" -ne 0 ] && tail -n 60 "$logdir/$j.log"
  done
  echo "fuzz $target: a finding (exit $status), its input in $artifacts: $found"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
