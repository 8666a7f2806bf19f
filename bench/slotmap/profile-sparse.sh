#!/usr/bin/env bash
# bench/slotmap/profile-sparse.sh -- instructions and simulated cache misses
# per operation of each phase of the sparse-set benchmark (run.sh
# --sparse-only), counted by valgrind's callgrind: deterministic, no timing,
# so it may run beside other work.
#
# Each program runs once per N with one repetition (--reps 1) under
#   valgrind --tool=callgrind --cache-sim=yes --dump-before='clock_gettime*'
# Every phase of the programs is timed between two clock_gettime calls
# (sparse_slate.c's now_ns, sparse_bench.rs's Instant::now), so callgrind
# writes one profile per stretch between two calls and every second one is
# a timed phase, in the programs' phase order. The binaries are the ones
# run.sh times, with its GLIBC_TUNABLES; each count includes one
# clock_gettime call (about 30 instructions, under 0.3 per op at the
# smallest N). callgrind does not simulate prefetch instructions.
#
# Twice per program and N, with the caches of the Zen 4 machine (an AMD
# EPYC: D1 48 KiB 12-way, L2 1 MiB 16-way a core, L3 32 MiB 16-way; 64-byte
# lines) given explicitly, since callgrind simulates two levels (D1 and
# one last level) and misreads this machine's L3:
#   l2 run: --D1=49152,12,64 --LL=1048576,16,64    (the "LL" is the L2)
#   l3 run: --D1=49152,12,64 --LL=33554432,16,64   (the "LL" is the L3)
# The instruction and D1 counts of the two runs are the same.
#
# Printed per phase, N and program, per op (per row of the smaller set for
# join and iterate10, which only the Rust peers have): Ir (instructions),
# D1 (D1 misses, reads and writes), L2 and L3 (the two runs' LL misses).
# For slate (the plain C call, which keeps the library's functions apart)
# the instructions are also split: "in call" is the inclusive count of the
# library call (slotmap_sparse_get, slotmap_sparse_get_many,
# slotmap_sparse_contains, slotmap_join without its callback), "callback"
# the join callback's (join_cb), "caller" the rest (the benchmark's own
# loop). slate-lto's are not split.
#
# Usage (from anywhere):
#   bench/slotmap/profile-sparse.sh                    # N = 1,000 100,000
#   bench/slotmap/profile-sparse.sh --sizes "1000 100000 1000000"
#   bench/slotmap/profile-sparse.sh --impls "slate shipyard" --no-build
# --impls: any of slate slate-lto SecondaryMap SparseSecondaryMap shipyard
# (default: all but SparseSecondaryMap). Builds first through
# run.sh --sparse-only --build-only unless --no-build. Profiles are kept in
# bench/slotmap/build/profile/<impl>.<N>.<l2|l3>/; the table also goes to
# bench/slotmap/build/profile/table.txt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build="$here/build"
out="$build/profile"
sizes="1000 100000"
impls="slate slate-lto SecondaryMap shipyard"
do_build=1

while (($#)); do
    case $1 in
        --sizes) sizes=${2:?}; shift ;;
        --sizes=*) sizes=${1#*=} ;;
        --impls) impls=${2:?}; shift ;;
        --impls=*) impls=${1#*=} ;;
        --no-build) do_build=0 ;;
        -h | --help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 2 ;;
        *) echo "profile-sparse.sh: unknown argument: $1" >&2; exit 2 ;;
    esac
    shift
done

command -v valgrind >/dev/null || { echo "profile-sparse.sh: valgrind not found" >&2; exit 1; }
((do_build)) && "$here/run.sh" --sparse-only --build-only

rust_bin="$here/rust/target/release/sparse_bench"
# impl -> command, phase list (the order the program runs them)
c_phases="set get get_many contains iterate join erase"
rust_phases="set get contains iterate join iterate10 erase"
command_of() {
    case $1 in
        slate) echo "$build/sparse_slate" ;;
        slate-lto) echo "$build/sparse_slate_lto --name slate-lto" ;;
        SecondaryMap) echo "$rust_bin --impl secondary" ;;
        SparseSecondaryMap) echo "$rust_bin --impl sparse-secondary" ;;
        shipyard) echo "$rust_bin --impl shipyard" ;;
        *) echo "profile-sparse.sh: unknown impl: $1" >&2; exit 2 ;;
    esac
}

mkdir -p "$out"
table="$out/table.txt"
: >"$table.raw"
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296}

# The inclusive Ir of the functions named in $2.. in profile $1, one line
# "name Ir" each (0 when absent).
inclusive() {
    local f=$1
    shift
    local listing
    listing=$(callgrind_annotate --inclusive=yes --threshold=100 "$f" 2>/dev/null)
    for fn in "$@"; do
        printf '%s %s\n' "$fn" "$(printf '%s\n' "$listing" | awk -v fn="$fn" '
            index($0, ":" fn " [") { gsub(/,/, "", $1); print $1; found = 1; exit }
            END { if (!found) print 0 }')"
    done
}

for n in $sizes; do
    m=$((n / 10 > 0 ? n / 10 : 1))
    for impl in $impls; do
        read -r -a cmd <<<"$(command_of "$impl")"
        [[ -x ${cmd[0]} ]] || { echo "profile-sparse.sh: ${cmd[0]} not built: $impl skipped" >&2; continue; }
        case $impl in slate*) phases=$c_phases ;; *) phases=$rust_phases ;; esac
        for level in l2 l3; do
            ll=1048576
            [[ $level == l3 ]] && ll=33554432
            dir="$out/$impl.$n.$level"
            rm -rf "$dir"
            mkdir -p "$dir"
            echo "== $impl N=$n ($level)" >&2
            nice valgrind --tool=callgrind --cache-sim=yes --I1=32768,8,64 --D1=49152,12,64 \
                --LL="$ll",16,64 --dump-before='clock_gettime*' \
                --callgrind-out-file="$dir/cg.out" "${cmd[@]}" --reps 1 "$n" \
                >"$dir/stdout" 2>"$dir/valgrind.log" ||
                { echo "profile-sparse.sh: $impl N=$n failed: $dir/valgrind.log" >&2; exit 1; }
            i=0
            for ph in $phases; do
                i=$((i + 2))
                f="$dir/cg.out.$i"
                [[ -f $f ]] || { echo "profile-sparse.sh: $f missing" >&2; exit 1; }
                ops=$n
                [[ $ph == join || $ph == iterate10 ]] && ops=$m
                # summary: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
                read -r ir d1 dl < <(awk '/^summary:/ { print $2, $6 + $7, $9 + $10 }' "$f")
                split="- - -"
                if [[ $impl == slate && $level == l2 ]]; then
                    case $ph in
                        get) fn=slotmap_sparse_get ;;
                        get_many) fn=slotmap_sparse_get_many ;;
                        contains) fn=slotmap_sparse_contains ;;
                        join) fn=slotmap_join ;;
                        *) fn= ;;
                    esac
                    if [[ -n $fn ]]; then
                        declare -A inc=()
                        while read -r name v; do inc[$name]=$v; done < <(inclusive "$f" "$fn" join_cb)
                        call=$((inc[$fn] - inc[join_cb]))
                        split="$call ${inc[join_cb]} $((ir - call - inc[join_cb]))"
                    fi
                fi
                echo "$impl $ph $n $level $ops $ir $d1 $dl $split" >>"$table.raw"
            done
        done
    done
done

awk -v impls="$impls" -v sizes="$sizes" -v phases="set get get_many contains iterate join iterate10 erase" '
    function per(v, ops) { return v == "-" ? "-" : sprintf("%.2f", v / ops) }
    {
        k = $1 SUBSEP $2 SUBSEP $3
        seen[k] = 1; ops[k] = $5; ir[k] = $6; d1[k] = $7
        if ($4 == "l2") { l2[k] = $8; call[k] = $9; cb[k] = $10; caller[k] = $11 }
        else l3[k] = $8
    }
    END {
        np = split(phases, P, " "); ns_ = split(sizes, S, " "); ni = split(impls, I, " ")
        printf "%-8s %9s %-18s | %8s %7s %7s %7s | %8s %8s %8s\n", "phase", "N", "impl", \
            "Ir/op", "D1/op", "L2/op", "L3/op", "in call", "callback", "caller"
        line = sprintf("%99s", ""); gsub(/ /, "-", line); print line
        for (p = 1; p <= np; p++) for (s = 1; s <= ns_; s++) for (i = 1; i <= ni; i++) {
            k = I[i] SUBSEP P[p] SUBSEP S[s]
            if (!(k in seen)) continue
            printf "%-8s %9s %-18s | %8s %7s %7s %7s | %8s %8s %8s\n", P[p], S[s], I[i], \
                per(ir[k], ops[k]), per(d1[k], ops[k]), per(l2[k], ops[k]), per(l3[k], ops[k]), \
                per(call[k], ops[k]), per(cb[k], ops[k]), per(caller[k], ops[k])
        }
    }' "$table.raw" | tee "$table"
