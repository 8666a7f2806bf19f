#!/usr/bin/env bash
# shellcheck disable=SC2317  # helpers run through check(), which shellcheck does not follow
# cli/test-tmux.sh: drives bin/cli-test's interactive mode in a real
# terminal: tmux sessions of a fixed size on a private server, keys sent with
# send-keys, screens read with capture-pane. Checks the counts the screen
# shows after keys, that the view fits the terminal and scrolls, colour and
# NO_COLOR, and that q, Esc, Ctrl-C and SIGTERM all leave the terminal as it
# was (stty -a before and after, compared). The last line is
# "N passed, M failed"; the exit status is non-zero when something failed.
# Without tmux it prints a SKIP line and exits 0 (scripts/setup.sh-style
# installs: apt-get install -y tmux).
#
#   bash cli/test-tmux.sh            (CLI=path/to/cli-test to test another build)
set -u
cd "$(dirname "$0")/.." || exit 1
CLI=${CLI:-./bin/cli-test}

if ! command -v tmux >/dev/null; then
  echo "SKIP: tmux is not installed (apt-get install -y tmux): the interactive mode was not tested"
  exit 0
fi

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAILED: $1"; }
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
CLI=$(cd "$(dirname "$CLI")" && pwd)/$(basename "$CLI")
tmp=$(mktemp -d)
# A private tmux server (its own socket, no user configuration), killed at
# the end with everything it runs.
TMUX_CMD=(tmux -L "cli-test-$$" -f /dev/null)
tm() { "${TMUX_CMD[@]}" "$@"; }
trap 'tm kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
unset TMUX

# start NAME COLS ROWS [ENV...]: a session running the CLI in its own
# script, which records `stty -a` before and after, and the exit status.
# Its pane stays open afterwards (sleep) so the screen can be read.
start() {
  local name=$1 cols=$2 rows=$3
  shift 3
  mkdir -p "$tmp/$name"
  cat >"$tmp/$name/run.sh" <<EOF
trap 'echo "[interrupted]"' INT
cd "$tmp/$name"
stty -a > before
env -u NO_COLOR $* "$CLI" --seed 1
echo \$? > rc.tmp && mv rc.tmp rc
stty -a > after
echo "shell prompt again"
sleep 60
EOF
  tm new-session -d -s "$name" -x "$cols" -y "$rows" "bash $tmp/$name/run.sh"
}
screen() { tm capture-pane -p -t "$1"; }
# wait_for NAME PATTERN: until the screen shows PATTERN (at most 10 s).
wait_for() {
  local i
  for ((i = 0; i < 100; i++)); do
    screen "$1" | grep -q -- "$2" && return 0
    sleep 0.1
  done
  echo "  (timed out waiting for '$2'; the screen:)"
  screen "$1" | sed 's/^/  | /'
  return 1
}
# exited NAME: until the CLI's exit status is recorded (at most 10 s).
exited() {
  local i
  for ((i = 0; i < 100; i++)); do
    [ -f "$tmp/$1/rc" ] && [ -f "$tmp/$1/after" ] && return 0
    sleep 0.1
  done
  return 1
}
rc_of() { cat "$tmp/$1/rc" 2>/dev/null; }
restored() { cmp -s "$tmp/$1/before" "$tmp/$1/after"; }
cooked() { grep -Eq '(^| )icanon( |$)' "$tmp/$1/after" && grep -Eq '(^| )echo( |$)' "$tmp/$1/after"; }
# fits NAME COLS ROWS: the screen is ROWS lines, none longer than COLS - 1.
fits() {
  local s
  s=$(screen "$1")
  [ "$(wc -l <<<"$s")" -eq "$3" ] && [ "$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' <<<"$s")" -lt "$2" ]
}
last_row() { screen "$1" | tail -1; }
# eventually COMMAND...: until the command succeeds (at most 5 s).
eventually() {
  local i
  for ((i = 0; i < 50; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}
exited_with() { exited "$1" && [ "$(rc_of "$1")" = "$2" ]; }
# footer_is NAME GLOB: the footer matches the glob pattern.
# shellcheck disable=SC2053
footer_is() { [[ "$(last_row "$1")" == $2 ]]; }
marked_group() { screen "$1" | grep -Eq '^ +[0-9]+[ #x.]*>'; }
coloured() { tm capture-pane -p -e -t "$1" | grep -q $'\x1b\\[32m'; }
uncoloured() { ! tm capture-pane -p -e -t "$1" | grep -q $'\x1b\\['; }
# The last table index the footer shows ("tables A-B of N").
footer_last() { last_row "$1" | sed -n 's/^tables [0-9]*-\([0-9]*\) of.*/\1/p'; }
footer_before() { local l; l=$(footer_last "$1"); [ -n "$l" ] && [ "$l" -lt "$2" ]; }
# The most groups on one grid row of the screen.
groups_per_row_is() {
  [ "$(screen "$1" | grep -E '^ +[0-9]+[ >][#x.]' | tr '>' ' ' | awk '{ if (NF - 1 > m) m = NF - 1 } END { print m + 0 }')" = "$2" ]
}

# --- counts after keys; k v p c; Ctrl-C restores the terminal ---------------

start main 80 24
check "the start screen" wait_for main "^start: empty map"
tm send-keys -t main 3
check "3: the status line shows 1000 entries" wait_for main "^key '3': inserted 1000 random keys (10^3); 1000 entries"
check "3: the CLI's check and slate_check OK" wait_for main "^check: cli OK; slate_check OK"
check "3: a split (2 tables, global depth 1)" wait_for main "global depth 1, directory 2, tables 2"
check "3: the last key's group is in view, marked" marked_group main
check "3: the screen fits 80x24" fits main 80 24
check "3: the footer is the last row" footer_is main 'tables *-* of 2 |*'
tm send-keys -t main x
check "x: one more key, 1001 entries" wait_for main "^key 'x': inserted key 0x[0-9a-f]*; 1001 entries"
check "x: only its table re-read" wait_for main "re-read 1 of 2 tables"
tm send-keys -t main BSpace
check "Backspace: 1000 entries" wait_for main "^key Backspace: deleted key 0x[0-9a-f]*; 1000 entries"
tm send-keys -t main v
check "v: all 1000 keys found" wait_for main "^key 'v': verify: all 1000 keys found"
tm send-keys -t main k
check "k: the clone equals the map" wait_for main "^key 'k': clone: slate_equal(copy, map) = 1 (equal)"
tm send-keys -t main p
check "p: compacted" wait_for main "^key 'p': compacted: capacity"
tm send-keys -t main c
check "c: 0 entries, capacity kept" wait_for main "^key 'c': cleared: capacity kept (2048 -> 2048 slots); 0 entries"
tm send-keys -t main f 1
check "f then 1: fingerprints, 10 entries" wait_for main "^key '1': inserted 10 random keys (10^1); 10 entries"
check "colour on a terminal" coloured main
tm send-keys -t main C-c
check "Ctrl-C: the CLI exits" exited main
check "Ctrl-C: it dies of SIGINT (status 130)" [ "$(rc_of main)" = 130 ]
check "Ctrl-C: icanon and echo are back" cooked main
check "Ctrl-C: stty -a exactly as before" restored main
check "Ctrl-C: the alternate screen is gone" wait_for main "shell prompt again"

# --- q and Esc quit, with the terminal restored ----------------------------

start quit 80 24
wait_for quit "^start: empty map" >/dev/null
tm send-keys -t quit 1
check "1: 10 entries" wait_for quit "^key '1': inserted 10 random keys (10^1); 10 entries"
tm send-keys -t quit q
check "q: the CLI exits with status 0" exited_with quit 0
check "q: stty -a exactly as before" restored quit
check "q: the normal screen is back" wait_for quit "shell prompt again"

start esc 80 24
wait_for esc "^start: empty map" >/dev/null
tm send-keys -t esc 2 Escape
check "Esc: the CLI exits with status 0" exited_with esc 0
check "Esc: stty -a exactly as before" restored esc

# --- NO_COLOR --------------------------------------------------------------

start nocolor 80 24 NO_COLOR=1
wait_for nocolor "^start: empty map" >/dev/null
tm send-keys -t nocolor 2
check "NO_COLOR: 100 entries" wait_for nocolor "; 100 entries$"
check "NO_COLOR: no colour or attribute on screen" uncoloured nocolor
tm send-keys -t nocolor q

# --- thousands of tables: the view fits, follows the last key, scrolls -----

start many 100 30
wait_for many "^start: empty map" >/dev/null
tm send-keys -t many 6
check "6: a million entries" wait_for many "; 1000000 entries$"
tables=$(screen many | sed -n 's/.*, tables \([0-9]*\),.*/\1/p' | head -1)
check "6: thousands of tables ($tables)" [ "${tables:-0}" -ge 1000 ]
check "6: the screen fits 100x30" fits many 100 30
check "6: the footer tells where the view is" footer_is many "tables *-* of $tables |*"
check "6: the last key's table is on screen" wait_for many "^table [0-9]* (new, last key): "
tm send-keys -t many Home
check "Home: the first table" wait_for many "^tables 0-[0-9]* of $tables (scrolled)"
tm send-keys -t many ']'
check "]: the next table" wait_for many "^tables 1-[0-9]* of $tables (scrolled)"
tm send-keys -t many ']' ']'
check "] ]: two more" wait_for many "^tables 3-[0-9]* of $tables (scrolled)"
tm send-keys -t many '['
check "[: back one" wait_for many "^tables 2-[0-9]* of $tables (scrolled)"
tm send-keys -t many End
check "End: the last table" wait_for many "^tables [0-9]*-$((tables - 1)) of $tables (scrolled)"
tm send-keys -t many PPage
check "PgUp: a page back" eventually footer_before many $((tables - 1))
tm send-keys -t many x
check "a change follows the last key again" wait_for many "^key 'x': inserted key"
check "the view is not scrolled any more" footer_is many "tables *-* of $tables |*"
check "only the changed table re-read" wait_for many "re-read 1 of $tables tables"
tm resize-window -t many -x 60 -y 20
check "resized: redrawn to fit 60x20" eventually fits many 60 20
check "resized: 6 groups per line" eventually groups_per_row_is many 6
tm send-keys -t many q
check "q after a million keys: status 0" exited_with many 0

# --- SIGTERM: restored too -------------------------------------------------

mkdir -p "$tmp/term"
cat >"$tmp/term/run.sh" <<EOF
cd "$tmp/term"
stty -a > before
"$CLI" --seed 1 </dev/tty &
echo \$! > pid
wait \$!
echo \$? > rc.tmp && mv rc.tmp rc
stty -a > after
sleep 60
EOF
tm new-session -d -s term -x 80 -y 24 "bash $tmp/term/run.sh"
wait_for term "^start: empty map" >/dev/null
tm send-keys -t term 2
check "SIGTERM session: 100 entries" wait_for term "; 100 entries$"
kill -TERM "$(cat "$tmp/term/pid")"
check "SIGTERM: the CLI dies of it (status 143)" exited_with term 143
check "SIGTERM: stty -a exactly as before" restored term

finish
