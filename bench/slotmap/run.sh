#!/usr/bin/env bash
# bench/slotmap/run.sh -- the slotmap benchmark: slate-rs (through its C ABI,
# linked against target/release/libslate.a) against the `slotmap` crate's
# SlotMap and DenseSlotMap (native Rust, inlined) and a plain C++ dense
# slotmap (seed_slotmap.cpp); then its sparse-set section (below).
#
# Builds all programs, runs them interleaved (slate, SlotMap, DenseSlotMap,
# C++ seed; slate, SlotMap, ...) for a number of rounds, takes the median
# across rounds of each program's per-phase median, checks that every
# program reported the same checksums, and prints one table: ns/op per
# implementation, the ratios of slate to each peer, and the targets:
#
# slate-lto is the same C program built with clang-22 -flto=thin against an
# LTO build of libslate.a (RUSTFLAGS=-Clinker-plugin-lto), when clang-22
# and lld-22 are installed: the C API calls can then be inlined into the
# caller. Both are judged against the targets:
#
#   get      slate / faster of (SlotMap, DenseSlotMap) <= 1.30
#   iterate  slate / DenseSlotMap                      <= 1.05 (1.0 + ~5% noise)
#   insert   slate / faster of (SlotMap, DenseSlotMap) <= 1.50
#   erase    slate / faster of (SlotMap, DenseSlotMap) <= 1.50
#   each     (slotmap_each with a callback: informational, no target)
#
# Then a second table, batch gets (informational, no target): slate's
# get_b16, get_b64 and get_b256 phases, the get phase again with the same
# shuffled keys in the same order through slotmap_get_many, 16, 64 or 256
# keys a call (ns per key), beside the single gets of slate, SlotMap,
# DenseSlotMap and the C++ seed, with the best batch size's ratio to
# slate's single get and to each peer. Only slate and slate-lto have batch
# phases; their checksums are checked against the get phase's.
#
# The sparse-set section (--section sparse, or --sparse-only, for it
# alone): slate's sparse sets (slotmap_sparse_*, SPEC 6b) through the plain
# C calls (sparse_slate.c, and its slate-lto build) against the `slotmap`
# crate's SecondaryMap and SparseSecondaryMap (keyed by an owner SlotMap's
# keys) and the sparse-set ECS `shipyard` (rust/src/bin/sparse_bench.rs),
# interleaved as above: set, get (shuffled), get_many (slate only:
# slotmap_sparse_get_many, 64 keys a call, beside get), contains, iterate
# (the dense rows), join (a set of every entity with one of 10% of them:
# slotmap_join; shipyard's own (&a, &b).iter(); the SecondaryMaps walk the
# smaller and get in the larger; ns per key of the smaller set), iterate10
# (the Rust peers only, informational, no target: the join's smaller set
# walked, an iteration where 10% of the entities have the component, which
# for SecondaryMap is a walk of N slots, 1 in 10 occupied; ns per element
# found. slate's walk of a set's dense rows is its iterate loop whatever
# share of the entities the set holds) and erase.
# A table of medians with slate's ratio to each peer's same phase, then
# the issue's targets (issue 23):
#
#   get, contains  slate / shipyard get      <= 1.30 (<= 2.00 at N = 1,000)
#   get, contains  slate / SecondaryMap get  <= 2.00
#   get_many       slate / SecondaryMap get  <= 1.00 (at N = 1,000,000)
#   iterate        slate / SecondaryMap      <= 0.50 (at least 2x faster)
#   iterate        slate / shipyard          <= 1.00
#   join           slate / shipyard          <= 1.00
#
# Why shipyard (0.11.5, pinned in rust/Cargo.toml) rather than sparsey:
# shipyard is the more mature of the two (released since 2019, in use by
# other crates) and is built, as its README says, on EnTT's core data
# structure, the one the issue names: each component storage is a plain
# sparse set, a paged sparse array of generational entity ids (pages of
# 32) into a dense array of ids and a dense array of components, with
# swap-and-pop removal, as slate's sets are. Its API gives every operation
# measured here directly: EntitiesView::add_component (checked against
# the live entities, as slate's set is against its owner), Get on a view,
# SparseSet::contains, ViewMut::delete, a view's dense iter(), and
# (&a, &b).iter() for the two-component join, which walks the shorter
# storage as slotmap_join does. sparsey's fast joint iteration rests on
# "groups", declared up front, which keep the grouped storages' dense
# arrays ordered so that entities holding all the grouped components come
# first: another structure than the ungrouped sparse sets slate offers.
#
# Usage (from anywhere):
#   bench/slotmap/run.sh                 # N = 1,000 100,000 1,000,000; 5 rounds
#   bench/slotmap/run.sh --quick         # N = 1,000 100,000; 2 rounds
#   bench/slotmap/run.sh --rounds 9      # or ROUNDS=9 bench/slotmap/run.sh
#   bench/slotmap/run.sh --sizes "1000 50000" --reps 20
#   bench/slotmap/run.sh --no-build      # reuse the binaries of the last build
#   bench/slotmap/run.sh --build-only    # build the section's programs, run nothing
#   bench/slotmap/run.sh --section slotmap   # the slotmap section alone
#   bench/slotmap/run.sh --section sparse    # the sparse-set section alone
#   bench/slotmap/run.sh --sparse-only       # the same
#
# Memory: every program builds a fresh slotmap (sparse set) for each
# repetition. So that
# the timings measure the data structures rather than the kernel's page-fault
# path (which glibc's adaptive mmap/trim thresholds would hit in some
# programs and not in others, depending on their allocation sizes), run.sh
# sets GLIBC_TUNABLES=glibc.malloc.mmap_threshold=32 MiB:trim_threshold=4 GiB
# for all programs alike (freed memory is kept and reused warm), unless
# GLIBC_TUNABLES is already set (e.g. GLIBC_TUNABLES= for glibc defaults).
#
# Raw lines ("round impl phase N ns_per_op checksum") are kept in
# bench/slotmap/build/results.txt (the sparse-set section's in
# results-sparse.txt). Exit status: 0 when everything ran and
# the checksums agree (targets missed or not), 1 otherwise.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$here/build"

rounds=${ROUNDS:-5}
reps=${REPS:-}
sizes="1000 100000 1000000"
do_build=1
build_only=0
section=all
rounds_set=0
[[ -n ${ROUNDS:-} ]] && rounds_set=1

usage() {
    sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'
    exit 2
}

while (($#)); do
    case $1 in
        --quick)
            sizes="1000 100000"
            ((rounds_set)) || rounds=2
            ;;
        --rounds) rounds=${2:?}; rounds_set=1; shift ;;
        --rounds=*) rounds=${1#*=}; rounds_set=1 ;;
        --reps) reps=${2:?}; shift ;;
        --reps=*) reps=${1#*=} ;;
        --sizes) sizes=${2:?}; shift ;;
        --sizes=*) sizes=${1#*=} ;;
        --no-build) do_build=0 ;;
        --build-only) build_only=1 ;;
        --section) section=${2:?}; shift ;;
        --section=*) section=${1#*=} ;;
        --sparse-only) section=sparse ;;
        -h | --help) usage ;;
        [0-9]*) rounds=$1; rounds_set=1 ;;
        *) echo "run.sh: unknown argument: $1" >&2; usage ;;
    esac
    shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad round count: $rounds" >&2; exit 2; }
case $section in
    all | slotmap | sparse) ;;
    *) echo "run.sh: unknown section: $section (all, slotmap or sparse)" >&2; exit 2 ;;
esac
do_slotmap=0
do_sparse=0
[[ $section == sparse ]] || do_slotmap=1
[[ $section == slotmap ]] || do_sparse=1

mkdir -p "$build"
slate_bin="$build/slotmap_slate"
seed_bin="$build/seed_slotmap"
rust_bin="$here/rust/target/release/slotmap_bench"
lto_bin="$build/slotmap_slate_lto"
sparse_bin="$build/sparse_slate"
sparse_lto_bin="$build/sparse_slate_lto"
sparse_rust_bin="$here/rust/target/release/sparse_bench"
LTO_CC=${LTO_CC:-clang-22}
LTO_LD=${LTO_LD:-lld-22}
# Let ThinLTO import the library's larger entry points into the caller and
# inline them: by default it imports functions of under 100 IR
# instructions and inlines below a cost of 225, which the map's calls
# exceed (docs/INSTALL.md, "Cross-language LTO"). Set it empty for clang's defaults.
LTO_INLINE=${LTO_INLINE--Wl,-mllvm,-import-instr-limit=1000 -Wl,-mllvm,-inline-threshold=3000}

if ((do_build)); then
    echo "== build" >&2
    # As make builds it (the archive rewritten: scripts/localize-archive.sh).
    "$root/scripts/build-lib.sh" >"$build/build-lib.log" 2>&1 || { cat "$build/build-lib.log" >&2; exit 1; }
    # The C programs of the sections asked for: source, binary.
    c_progs=()
    ((do_slotmap)) && c_progs+=("$here/slotmap_slate.c" "$slate_bin")
    ((do_sparse)) && c_progs+=("$here/sparse_slate.c" "$sparse_bin")
    for ((i = 0; i < ${#c_progs[@]}; i += 2)); do
        ${CC:-gcc} -std=c11 -O2 -Wall -Wextra -Werror -I"$root/include" \
            "${c_progs[i]}" "$root/target/release/libslate.a" \
            -lpthread -ldl -lm -o "${c_progs[i + 1]}"
    done
    if ((do_slotmap)); then
        ${CXX:-g++} -std=c++17 -O2 -Wall -Wextra -Werror \
            "$here/seed_slotmap.cpp" -o "$seed_bin"
    fi
    # Both sections' Rust programs (slotmap_bench, sparse_bench).
    (cd "$here/rust" && CARGO_TARGET_DIR="$here/rust/target" cargo build --release --quiet)
    rm -f "$lto_bin" "$sparse_lto_bin"
    if command -v "$LTO_CC" >/dev/null && command -v "ld.$LTO_LD" >/dev/null; then
        echo "== build slate-lto ($LTO_CC -flto=thin $LTO_INLINE, RUSTFLAGS=-Clinker-plugin-lto)" >&2
        if (cd "$root" && RUSTFLAGS="-Clinker-plugin-lto" cargo build --release --quiet \
                --target-dir "$build/lto-target"); then
            for ((i = 0; i < ${#c_progs[@]}; i += 2)); do
                out="${c_progs[i + 1]}_lto"
                if ! "$LTO_CC" --target=x86_64-unknown-linux-gnu -std=c11 -O2 -flto=thin $LTO_INLINE \
                    -fuse-ld="$LTO_LD" -Wall -Wextra -Werror -I"$root/include" \
                    "${c_progs[i]}" "$build/lto-target/release/libslate.a" \
                    -lpthread -ldl -lm -o "$out"; then
                    echo "run.sh: the cross-language-LTO build of ${c_progs[i]##*/} failed: skipped" >&2
                    rm -f "$out"
                fi
            done
        else
            echo "run.sh: the cross-language-LTO build of the library failed: slate-lto skipped" >&2
        fi
    else
        echo "run.sh: $LTO_CC / ld.$LTO_LD not found: slate-lto skipped" >&2
    fi
fi

((build_only)) && exit 0

# See "Memory" above; an empty GLIBC_TUNABLES keeps glibc's defaults.
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296}

reps_arg=()
[[ -n $reps ]] && reps_arg=(--reps "$reps")
read -r -a size_list <<<"$sizes"

run_one() { # round, label, command...
    local round=$1 label=$2
    shift 2
    local out
    if ! out=$("$@" "${reps_arg[@]}" "${size_list[@]}"); then
        echo "run.sh: $label failed (round $round)" >&2
        exit 1
    fi
    printf '%s\n' "$out" | sed "s/^/$round /" >>"$results" # the section's raw lines
}

# What both sections' tables share: the raw lines read into medians
# (median(impl SUBSEP phase SUBSEP N), -1 for none), the checksums checked
# across programs (bad = 1 on a mismatch), and the number formats.
awk_common='
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
    function ns(v) { return v < 0 ? "-" : sprintf("%.2f", v) }
    function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.2f", a / b) }
    {
        # round impl phase N ns checksum
        key = $2 SUBSEP $3 SUBSEP $4
        val[key, ++cnt[key]] = $5 + 0
        # a batch get (get_b16 ..., get_many) has the checksum of get
        base = $3; sub(/_b[0-9]+$/, "", base); sub(/_many$/, "", base)
        ck = base SUBSEP $4
        if (!(ck in checksum)) { checksum[ck] = $6; first[ck] = $2 " " $3 }
        else if (checksum[ck] != $6) {
            printf "CHECKSUM MISMATCH: %s %s N=%s: %s (%s) vs %s (%s)\n", $2, $3, $4, $6, $2, checksum[ck], first[ck]
            bad = 1
        }
    }
'

status=0

# The slotmap section.
if ((do_slotmap)); then
    results="$build/results.txt"
    : >"$results"
    load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
    start=$(date +%s)

    for ((r = 1; r <= rounds; r++)); do
        echo "== round $r/$rounds" >&2
        run_one "$r" slate "$slate_bin"
        [[ -x $lto_bin ]] && run_one "$r" slate-lto "$lto_bin" --name slate-lto
        run_one "$r" SlotMap "$rust_bin" --impl slotmap
        run_one "$r" DenseSlotMap "$rust_bin" --impl dense
        run_one "$r" seed "$seed_bin"
    done

    elapsed=$(($(date +%s) - start))
    load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

    echo
    echo "slotmap benchmark: 16-byte element {u64 id; f32 x; f32 y}, one column; ns/op, median of $rounds round(s)"
    echo "  (each round's value: the median of a program's repetitions; interleaved slate, slate-lto, SlotMap, DenseSlotMap, C++ seed)"
    echo "  cpus: $(nproc 2>/dev/null || echo '?'); load average before: $load_before, after: $load_after; run time ${elapsed}s"
    echo "  GLIBC_TUNABLES=${GLIBC_TUNABLES:-(glibc defaults)}"
    echo "  slate: C ABI, libslate.a, gcc -O2; slate-lto: the same with clang-22 -O2 -flto=thin $LTO_INLINE (cross-language LTO)"
    echo "  SlotMap/DenseSlotMap: slotmap crate, native Rust (LTO); seed: plain C++ dense slotmap, g++ -O2"
    echo

    awk -v phases="insert get iterate each erase" -v sizes="$sizes" "$awk_common"'
    END {
        np = split(phases, P, " ")
        ns_ = split(sizes, S, " ")
        printf "%-8s %9s | %8s %9s %8s %8s %8s | %8s %8s %8s %8s %8s | %-14s %-12s %s\n", \
            "phase", "N", "slate", "slate-lto", "SlotMap", "DenseSM", "C++seed", \
            "/SlotMap", "/DenseSM", "/C++seed", "/best", "lto/best", "target", "slate", "slate-lto"
        line = sprintf("%136s", ""); gsub(/ /, "-", line); print line
        met = 0; total = 0; lmet = 0; ltotal = 0
        for (p = 1; p <= np; p++) {
            for (s = 1; s <= ns_; s++) {
                ph = P[p]; n = S[s]
                sl = median("slate" SUBSEP ph SUBSEP n)
                lt = median("slate-lto" SUBSEP ph SUBSEP n)
                sm = median("SlotMap" SUBSEP ph SUBSEP n)
                dm = median("DenseSlotMap" SUBSEP ph SUBSEP n)
                sd = median("seed" SUBSEP ph SUBSEP n)
                best = (sm >= 0 && (dm < 0 || sm <= dm)) ? sm : dm
                target = "-"; status = "(info)"; lstatus = ""
                if (ph == "get")     { lim = 1.30; ref = best; target = "<=1.30 x best" }
                if (ph == "insert")  { lim = 1.50; ref = best; target = "<=1.50 x best" }
                if (ph == "erase")   { lim = 1.50; ref = best; target = "<=1.50 x best" }
                if (ph == "iterate") { lim = 1.05; ref = dm;   target = "<=1.05 x Dense" }
                if (target != "-") {
                    total++
                    if (sl >= 0 && ref > 0 && sl / ref <= lim) { status = "ok"; met++ }
                    else status = "MISS (" ratio(sl, ref) ")"
                    if (lt >= 0) {
                        ltotal++
                        if (ref > 0 && lt / ref <= lim) { lstatus = "ok"; lmet++ }
                        else lstatus = "MISS (" ratio(lt, ref) ")"
                    }
                }
                printf "%-8s %9s | %8s %9s %8s %8s %8s | %8s %8s %8s %8s %8s | %-14s %-12s %s\n", \
                    ph, n, ns(sl), ns(lt), ns(sm), ns(dm), ns(sd), ratio(sl, sm), ratio(sl, dm), \
                    ratio(sl, sd), ratio(sl, best), ratio(lt, best), target, status, lstatus
            }
        }
        print line
        printf "targets met: slate %d of %d", met, total
        if (ltotal) printf ", slate-lto %d of %d", lmet, ltotal
        printf "%s\n", bad ? "; CHECKSUMS DISAGREE" : "; checksums agree across all programs (batch gets: with get)"

        # Batch gets: slotmap_get_many against the single gets (informational).
        nb = split("16 64 256", BS, " ")
        print ""
        print "batch gets (informational, no target): ns per key; b16 b64 b256 = slotmap_get_many, 16, 64 or 256 keys a call, the get"
        print "  phase'"'"'s shuffled keys in the same order, each call'"'"'s elements summed; get = one key a call (the get rows above);"
        print "  best = slate'"'"'s fastest batch size; ratios of best (below 1: the batch faster) to slate'"'"'s get, SlotMap, DenseSlotMap, the C++"
        print "  seed and the faster crate; lto = slate-lto'"'"'s best batch and its ratio to the faster crate"
        bh = sprintf("%-8s %9s | %8s %8s %8s %8s | %8s %8s %8s | %4s %8s %8s %8s %8s %8s | %8s %8s", \
            "phase", "N", "get", "b16", "b64", "b256", "SlotMap", "DenseSM", "C++seed", \
            "best", "/get", "/SlotMap", "/DenseSM", "/C++seed", "/best", "lto", "lto/best")
        print bh
        bline = bh; gsub(/./, "-", bline); print bline
        for (s = 1; s <= ns_; s++) {
            n = S[s]
            sl = median("slate" SUBSEP "get" SUBSEP n)
            sm = median("SlotMap" SUBSEP "get" SUBSEP n)
            dm = median("DenseSlotMap" SUBSEP "get" SUBSEP n)
            sd = median("seed" SUBSEP "get" SUBSEP n)
            crate = (sm >= 0 && (dm < 0 || sm <= dm)) ? sm : dm
            best = -1; bname = "-"; lbest = -1
            for (b = 1; b <= nb; b++) {
                v[b] = median("slate" SUBSEP "get_b" BS[b] SUBSEP n)
                if (v[b] >= 0 && (best < 0 || v[b] < best)) { best = v[b]; bname = "b" BS[b] }
                lv = median("slate-lto" SUBSEP "get_b" BS[b] SUBSEP n)
                if (lv >= 0 && (lbest < 0 || lv < lbest)) lbest = lv
            }
            printf "%-8s %9s | %8s %8s %8s %8s | %8s %8s %8s | %4s %8s %8s %8s %8s %8s | %8s %8s\n", \
                "get_b*", n, ns(sl), ns(v[1]), ns(v[2]), ns(v[3]), ns(sm), ns(dm), ns(sd), \
                bname, ratio(best, sl), ratio(best, sm), ratio(best, dm), ratio(best, sd), ratio(best, crate), ns(lbest), ratio(lbest, crate)
        }
        print bline
        exit bad
    }' "$results" || status=1
fi

# The sparse-set section.
if ((do_sparse)); then
    results="$build/results-sparse.txt"
    : >"$results"
    load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
    start=$(date +%s)

    for ((r = 1; r <= rounds; r++)); do
        echo "== sparse sets: round $r/$rounds" >&2
        run_one "$r" slate "$sparse_bin"
        [[ -x $sparse_lto_bin ]] && run_one "$r" slate-lto "$sparse_lto_bin" --name slate-lto
        run_one "$r" SecondaryMap "$sparse_rust_bin" --impl secondary
        run_one "$r" SparseSecondaryMap "$sparse_rust_bin" --impl sparse-secondary
        run_one "$r" shipyard "$sparse_rust_bin" --impl shipyard
    done

    elapsed=$(($(date +%s) - start))
    load_after=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')

    echo
    echo "sparse sets keyed by slotmap keys: 16-byte element {u64 id; f32 x; f32 y}, one column; ns/op, median of $rounds round(s)"
    echo "  (each round's value: the median of a program's repetitions; interleaved slate, slate-lto, SecondaryMap, SparseSecondaryMap, shipyard)"
    echo "  cpus: $(nproc 2>/dev/null || echo '?'); load average before: $load_before, after: $load_after; run time ${elapsed}s"
    echo "  GLIBC_TUNABLES=${GLIBC_TUNABLES:-(glibc defaults)}"
    echo "  slate: slotmap_sparse_* through the C ABI, libslate.a, gcc -O2; slate-lto: the same with $LTO_CC -O2 -flto=thin $LTO_INLINE (cross-language LTO)"
    echo "  SecondaryMap/SparseSecondaryMap: slotmap crate, keyed by a SlotMap's keys; shipyard: the ECS's component storages; native Rust (LTO)"
    echo "  get_many: slotmap_sparse_get_many, 64 keys a call, ns per key (its ratios: to each peer's get); join: ns per key of the smaller set (10% of N)"
    echo "  iterate10 (Rust peers only, no target): the join's smaller set walked (10% of the entities have the component), ns per element"
    echo

    awk -v phases="set get get_many contains iterate join iterate10 erase" -v sizes="$sizes" "$awk_common"'
    function m(impl, ph, n) { return median(impl SUBSEP ph SUBSEP n) }
    END {
        np = split(phases, P, " ")
        ns_ = split(sizes, S, " ")
        hdr = sprintf("%-8s %9s | %8s %9s %8s %8s %8s | %8s %8s %9s %9s", \
            "phase", "N", "slate", "slate-lto", "SecMap", "SparseSM", "shipyard", \
            "/SecMap", "/SparseSM", "/shipyard", "lto/ship")
        print hdr
        line = hdr; gsub(/./, "-", line); print line
        for (p = 1; p <= np; p++) {
            for (s = 1; s <= ns_; s++) {
                ph = P[p]; n = S[s]
                # the peers have no get_many: their get
                pp = ph == "get_many" ? "get" : ph
                sl = m("slate", ph, n); lt = m("slate-lto", ph, n)
                sc = m("SecondaryMap", pp, n); ss = m("SparseSecondaryMap", pp, n); sh = m("shipyard", pp, n)
                printf "%-8s %9s | %8s %9s %8s %8s %8s | %8s %8s %9s %9s\n", \
                    ph, n, ns(sl), ns(lt), (ph == "get_many" ? "(get)" : ns(sc)), \
                    (ph == "get_many" ? "(get)" : ns(ss)), (ph == "get_many" ? "(get)" : ns(sh)), \
                    ratio(sl, sc), ratio(sl, ss), ratio(sl, sh), ratio(lt, sh)
            }
        }
        print line

        # The targets of issue 23: phase of slate, peer, peer phase, limit at
        # N = 1,000, limit otherwise, the one N it applies at (0: every N).
        nt = 0
        T[++nt] = "get shipyard get 2.00 1.30 0"
        T[++nt] = "contains shipyard get 2.00 1.30 0"
        T[++nt] = "get SecondaryMap get 2.00 2.00 0"
        T[++nt] = "contains SecondaryMap get 2.00 2.00 0"
        T[++nt] = "get_many SecondaryMap get 1.00 1.00 1000000"
        T[++nt] = "iterate SecondaryMap iterate 0.50 0.50 0"
        T[++nt] = "iterate shipyard iterate 1.00 1.00 0"
        T[++nt] = "join shipyard join 1.00 1.00 0"
        print ""
        print "targets (issue 23): slate / peer <= limit"
        th = sprintf("%-34s %9s | %8s %8s | %7s %6s | %-12s %s", "target", "N", "slate", "peer", "ratio", "limit", "slate", "slate-lto")
        print th
        tline = th; gsub(/./, "-", tline); print tline
        met = 0; total = 0; lmet = 0; ltotal = 0
        for (t = 1; t <= nt; t++) {
            split(T[t], f, " ")
            for (s = 1; s <= ns_; s++) {
                n = S[s]
                if (f[6] != 0 && n != f[6]) continue
                lim = n == 1000 ? f[4] : f[5]
                sl = m("slate", f[1], n); lt = m("slate-lto", f[1], n); ref = m(f[2], f[3], n)
                total++
                if (sl >= 0 && ref > 0 && sl / ref <= lim + 0) { st = "ok"; met++ } else st = "MISS"
                lst = ""
                if (lt >= 0) {
                    ltotal++
                    if (ref > 0 && lt / ref <= lim + 0) { lst = "ok (" ratio(lt, ref) ")"; lmet++ }
                    else lst = "MISS (" ratio(lt, ref) ")"
                }
                printf "%-34s %9s | %8s %8s | %7s %6s | %-12s %s\n", \
                    f[1] " / " f[2] " " f[3], n, ns(sl), ns(ref), ratio(sl, ref), "<=" f[(n == 1000) ? 4 : 5], st, lst
            }
        }
        print tline
        printf "targets met: slate %d of %d", met, total
        if (ltotal) printf ", slate-lto %d of %d", lmet, ltotal
        printf "%s\n", bad ? "; CHECKSUMS DISAGREE" : "; checksums agree across all programs (get_many: with get)"
        exit bad
    }' "$results" || status=1
fi

exit "$status"
