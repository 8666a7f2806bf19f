#!/usr/bin/env bash
# shellcheck disable=SC2317  # helpers run through check(), which shellcheck does not follow
# cli/test-transcript.sh: drives bin/cli-test through piped input and checks
# what its plain transcripts show. The last line is "N passed, M failed";
# the exit status is non-zero when something failed.
#
#   bash cli/test-transcript.sh            (CLI=path/to/cli-test to test another build)
#
# Every run uses --seed, so the keys are the same each time; the map's own
# hash seed is random, so the checks rely only on what does not depend on it
# (counts, splits, invariants), or on what holds for every seed with a
# margin (tombstones after 300 deletions from 1,000 keys: the map then has
# a dozen full groups, and a deletion in one of them must leave a tombstone).
set -u
cd "$(dirname "$0")/.." || exit 1
CLI=${CLI:-./bin/cli-test}

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAILED: $1"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds.
check() {
  local what=$1
  shift
  if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
  echo "$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
}

if [ ! -x "$CLI" ]; then
  bad "$CLI is not built (make cli)"
  finish
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# repeat N TEXT: TEXT N times (printf understands its escapes).
repeat() { local i; for ((i = 0; i < $1; i++)); do printf '%b' "$2"; done; }
BS='\x7f'

# run NAME [OPTIONS...] < input: the transcript into $tmp/NAME.txt, the exit
# status into $tmp/NAME.rc.
run() {
  local name=$1
  shift
  "$CLI" "$@" >"$tmp/$name.txt" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}

# frame NAME LABEL [N]: the N-th (default: the last) frame whose status
# line starts "== LABEL": the status line and every line up to the next.
frame() {
  awk -v want="== $2" -v nth="${3:-0}" '
    /^== / { keep = index($0, want) == 1; if (keep) { seen++; if (nth && seen > nth) keep = 0; else buf = "" } }
    keep   { buf = buf $0 "\n" }
    END    { printf "%s", buf }' "$tmp/$1.txt"
}
# The values a frame shows: entries from the status line, the map line's
# counters, the grid lines (group rows), the table header lines.
entries() { sed -n '1s/.*; \([0-9][0-9]*\) entries$/\1/p'; }
map_field() { sed -n "s/^map: .*[ ,]$1 \([0-9][0-9]*\).*/\1/p"; }
grid() { grep -E '^ +[0-9]+[ >]' || true; }
table_lines() { grep -E '^table [0-9]+( \([^)]*\))?:' || true; }

is() { [ "$1" = "$2" ]; }
ge() { [ -n "$1" ] && [ "$1" -ge "$2" ]; }
lt() { [ -n "$1" ] && [ -n "$2" ] && [ "$1" -lt "$2" ]; }
has() { grep -q -- "$2" <<<"$1"; }
hasnt() { ! grep -q -- "$2" <<<"$1"; }

# --- usage -------------------------------------------------------------

help=$("$CLI" --help)
check "--help exits 0" is "$?" 0
check "--help explains the keys" has "$help" "Backspace.*delete a random entry"
check "--help documents --seed, and that the map's hash seed stays random" has "$help" "hash seed stays random"
check "--help documents --all" has "$help" "--all"
check "--help documents the scroll keys" has "$help" "PgUp and PgDn"
"$CLI" --bogus >/dev/null 2>&1
check "an unknown option exits 2" is "$?" 2
"$CLI" --seed -3 >/dev/null 2>&1 </dev/null
check "a negative --seed exits 2" is "$?" 2

# --- 3: a thousand keys need a split ------------------------------------

printf '3' | run three --seed 11
f=$(frame three "key '3'")
check "3: exit status 0" is "$(cat "$tmp/three.rc")" 0
check "3: the transcript has no escape codes" bash -c "! grep -q $'\x1b' '$tmp/three.txt'"
check "3: a start frame, then one frame for the key" is "$(grep -c '^== ' "$tmp/three.txt")" 3
check "3: 1000 entries" is "$(entries <<<"$f")" 1000
check "3: inserted 1000 random keys" has "$f" "inserted 1000 random keys"
check "3: a split: more than one table" ge "$(map_field tables <<<"$f")" 2
check "3: a split: global depth >= 1" ge "$(map_field "global depth" <<<"$f")" 1
check "3: invariants OK (the CLI's recount)" has "$f" "^check: cli OK"
check "3: slate_check OK" has "$f" "slate_check OK"
check "3: the last key is placed and marked" has "$f" "^last: inserted 0x[0-9a-f]* -> table [0-9]* group [0-9]* slot [0-7] "
check "3: exactly one group row carries the '>' mark" is "$(grid <<<"$f" | grep -c '>')" 1
check "3: u64 keys: every table has 16-byte u64 slots" is "$(table_lines <<<"$f" | grep -vc ', u64 slots (16 B)$')" 0
check "3: no table over 1024 slots" is "$(table_lines <<<"$f" | sed -n 's/.*, capacity \([0-9]*\),.*/\1/p' | awk '$1 > 1024' | wc -l)" 0

# --- deletions into full groups leave tombstones; p, v, k, c ------------

{ printf '3'; repeat 300 "$BS"; printf 'pvkcv'; } | run churn --seed 12
check "churn: exit status 0" is "$(cat "$tmp/churn.rc")" 0
frames=$(grep -c '^== ' "$tmp/churn.txt")
check "churn: every frame's invariants OK" is "$(grep -c '^check: cli OK; slate_check OK' "$tmp/churn.txt")" "$((frames - 1))"
check "churn: no check failed anywhere" bash -c "! grep -q FAILED '$tmp/churn.txt'"
del=$(frame churn "key Backspace")
check "deletes: 700 entries after 300 Backspaces" is "$(entries <<<"$del")" 700
check "deletes: tombstones counted in the map line" ge "$(map_field tombstones <<<"$del")" 1
check "deletes: x marks in the groups" ge "$(grid <<<"$del" | grep -c x)" 1
check "deletes: some deletion left a tombstone (its group was full)" grep -q "now a tombstone (x): its group had no empty slot" "$tmp/churn.txt"
check "deletes: some deletion emptied its slot (its group had an empty slot)" grep -q "now empty (.): its group had an empty slot" "$tmp/churn.txt"
cap_before=$(map_field capacity <<<"$del")
p=$(frame churn "key 'p'")
check "p: compacted, 700 entries" has "$p" "compacted: .*; 700 entries$"
check "p: no x remains" is "$(grid <<<"$p" | grep -c x)" 0
check "p: tombstones 0" is "$(map_field tombstones <<<"$p")" 0
check "p: capacity shrank ($cap_before -> $(map_field capacity <<<"$p"))" lt "$(map_field capacity <<<"$p")" "$cap_before"
check "p: invariants OK" has "$p" "^check: cli OK; slate_check OK"
v=$(frame churn "key 'v'" 1)
check "v: every key found" has "$(head -1 <<<"$v")" "verify: all 700 keys found"
k=$(frame churn "key 'k'")
check "k: the clone equals the map" has "$(head -1 <<<"$k")" "slate_equal(copy, map) = 1 (equal)"
check "k: the clone passes slate_check and is freed" has "$(head -1 <<<"$k")" "copy's slate_check OK; clone freed"
cap_kept=$(map_field capacity <<<"$k")
c=$(frame churn "key 'c'")
check "c: 0 entries" is "$(entries <<<"$c")" 0
check "c: capacity kept ($cap_kept)" is "$(map_field capacity <<<"$c")" "$cap_kept"
check "c: every slot empty" is "$(grid <<<"$c" | grep -c '[#x]')" 0
check "c: invariants OK" has "$c" "^check: cli OK; slate_check OK"
check "v after c: all 0 keys found" grep -q "^== key 'v': verify: all 0 keys found" "$tmp/churn.txt"

# --- the small map: one group of 8 that may fill up ---------------------

{ repeat 8 a; printf 'a'; } | run small --seed 13
f=$(frame small "key 'a'")
eighth=$(awk '/^== key/{n++} n==8' "$tmp/small.txt")
check "small: 8 keys fill one group (growth 0)" has "$eighth" "^table 0 (1 group changed, last key): small map (one group, no directory), used 8, capacity 8, growth 0, tombstones 0"
check "small: its invariants OK (max load 8, not 7)" has "$eighth" "^check: cli OK; slate_check OK"
check "small: the ninth key makes a 16-slot table" has "$f" "^table 0 (new, last key): dir 0-0, local depth 0, used 9, capacity 16, growth 5"

# --- reproducible keys ---------------------------------------------------

input='aaa\x7f2\x7f\x7fa'
printf '%b' "$input" | run seed1 --seed 42
printf '%b' "$input" | run seed2 --seed 42
printf '%b' "$input" | run seed3 --seed 43
grep '^== ' "$tmp/seed1.txt" >"$tmp/s1"
grep '^== ' "$tmp/seed2.txt" >"$tmp/s2"
grep '^== ' "$tmp/seed3.txt" >"$tmp/s3"
check "--seed: the same keys inserted and deleted, the same counts" cmp -s "$tmp/s1" "$tmp/s2"
check "--seed: another seed, other keys" bash -c "! cmp -s '$tmp/s1' '$tmp/s3'"
printf '' | run rand1
printf '' | run rand2
check "no --seed: a random key seed, shown in the first frame" bash -c \
  "! cmp -s <(head -1 '$tmp/rand1.txt') <(head -1 '$tmp/rand2.txt')"

# --- many tables: a bounded summary, or --all ----------------------------

printf '5' | run many --seed 5
f=$(frame many "key '5'")
tables=$(map_field tables <<<"$f")
shown=$(table_lines <<<"$f" | wc -l)
hidden=$(sed -n 's/^\.\.\. \([0-9]*\) tables\{0,1\} not shown.*/\1/p' <<<"$f" | awk '{s += $1} END {print s + 0}')
check "5: 100000 entries in $tables tables" is "$(entries <<<"$f")" 100000
check "5: the summary shows at most 5 tables" ge 5 "$shown"
check "5: shown + not shown = all $tables tables" is "$((shown + hidden))" "$tables"
check "5: the summary stays short ($(wc -l <<<"$f") lines)" lt "$(wc -l <<<"$f")" 120
check "5: the table holding the last key is shown" has "$f" "^table [0-9]* (new, last key): "
printf '5' | run all --seed 5 --all
f=$(frame all "key '5'")
check "--all: every table printed" is "$(table_lines <<<"$f" | wc -l)" "$(map_field tables <<<"$f")"
check "--all: the tables' used add up to 100000" is \
  "$(table_lines <<<"$f" | sed -n 's/.*, used \([0-9]*\),.*/\1/p' | awk '{s += $1} END {print s}')" 100000
check "--all: one group row per 8 groups (group = 8 cells)" is "$(grid <<<"$f" | wc -l)" \
  "$(table_lines <<<"$f" | sed -n 's/.*, capacity \([0-9]*\),.*/\1/p' | awk '{s += $1 / 64} END {print s}')"
check "--all: invariants OK" has "$f" "^check: cli OK; slate_check OK"

# --- keys: bulk cap, fingerprints, quit, Esc, scroll, newlines, 0x08 ------

printf '7' | run cap --seed 6
check "7: capped at a million" has "$(frame cap "key '7'" | head -1)" "inserted 1000000 random keys (10^7, capped at a million); 1000000 entries$"
printf '1f' | run fp --seed 7
fp=$(frame fp "key 'f'" | grid)
check "f: a full slot shows its fingerprint in hex" has "$fp" '[0-7][0-9a-f]'
check "f: no # marks in fingerprint mode" hasnt "$fp" '#'
check "f: empty slots are .. in fingerprint mode" has "$fp" '\.\.'
check "before f: # marks" has "$(frame fp "key '1'" | grid)" '#'

printf '1q1' | run quit --seed 8
check "q: quits at once (10 entries, nothing after)" is "$(tail -1 "$tmp/quit.txt")" "== key 'q': quit; 10 entries"
printf '1\x1b1' | run esc --seed 8
check "Esc: quits" is "$(tail -1 "$tmp/esc.txt")" "== key Esc: quit; 10 entries"
printf '1\x1b[A]1' | run arrows --seed 8
check "arrows and ] only scroll (20 entries at the end)" is "$(tail -1 "$tmp/arrows.txt")" "== end of input; 20 entries"
check "Up is read as one key" grep -q "^== key Up: scroll keys only move the terminal view; 10 entries" "$tmp/arrows.txt"
echo 1 | run newline --seed 8
check "newlines are ignored (echo 1 | cli-test)" is "$(tail -1 "$tmp/newline.txt")" "== end of input; 10 entries"
printf '1\x08\x08' | run ctrlh --seed 8
check "0x08 deletes too" is "$(tail -1 "$tmp/ctrlh.txt")" "== end of input; 8 entries"
printf '\x7f' | run empty --seed 8
check "Backspace on an empty map" grep -q "nothing to delete: the map is empty; 0 entries" "$tmp/empty.txt"

# --- valgrind: no leak, no error (when valgrind is installed) ------------

if command -v valgrind >/dev/null; then
  { printf '2'; repeat 40 "$BS"; printf 'xfpkv3'; repeat 50 "$BS"; printf 'kcvq'; } >"$tmp/vg.in"
  valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
    --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99 \
    "$CLI" --seed 9 <"$tmp/vg.in" >"$tmp/vg.out" 2>"$tmp/vg.err"
  rc=$?
  check "valgrind --leak-check=full on a transcript: clean (exit $rc)" is "$rc" 0
  [ "$rc" -eq 0 ] || cat "$tmp/vg.err"
else
  echo "SKIP: valgrind not installed"
fi

finish
