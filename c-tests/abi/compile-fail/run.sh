#!/bin/sh
# run.sh -- slate-generic.h must reject every key type it does not accept.
#
# Each source here other than control.c must FAIL to compile, as C11 and as
# C++17, once for each macro (SLATE_SET, SLATE_GET, SLATE_DELETE); the same
# source with -DSLATE_CF_CONTROL (which swaps only the key for one of an
# accepted type) must compile, and so must control.c (every accepted key type
# through every macro).  So a pass proves the failure comes from the key type,
# not from a broken header, a missing include or a warning.
#
# A source's "/* languages: ... */" line says which languages it is checked
# in ("c", "c++"); enum_key.c is C++ only, because in C an enum is compatible
# with an integer type and _Generic cannot reject it (see slate-generic.h).
#
# Usage:
#   c-tests/abi/compile-fail/run.sh [CC [CXX]]
# Environment (arguments win over the environment):
#   CC        C compiler (default: cc)
#   CXX       C++ compiler (default: c++; set it empty to skip C++)
#   CFLAGS    extra C flags, after "-std=c11 -Wall -Wextra -Werror" (so a
#             later -std=c17 there wins)
#   CXXFLAGS  extra C++ flags, after "-std=c++17 -Wall -Wextra -Werror";
#             run.sh adds -x c++ itself, the sources are .c files
#   SLATE_INCLUDE  directory holding slate.h and slate-generic.h
#             (default: ../../../include from this script)
#   VERBOSE=1 print every check and the first diagnostic of each failure
#
# Only compiles (-c); nothing is linked, so the library need not be built.
# Prints "N passed, M failed"; exits 0 only when M is 0 and N is not.

set -u

here=$(cd "$(dirname "$0")" && pwd)
include=${SLATE_INCLUDE:-$here/../../../include}
CC=${1:-${CC:-cc}}
if [ $# -ge 2 ]; then CXX=$2; else CXX=${CXX-c++}; fi
CFLAGS="-std=c11 -Wall -Wextra -Werror ${CFLAGS:-}"
CXXFLAGS="-std=c++17 -Wall -Wextra -Werror ${CXXFLAGS:-}"
VERBOSE=${VERBOSE:-0}

if [ ! -f "$include/slate.h" ] || [ ! -f "$include/slate-generic.h" ]; then
  echo "run.sh: slate.h or slate-generic.h not found in $include" >&2
  exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/slate-compile-fail.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0

pass() {
  passed=$((passed + 1))
  [ "$VERBOSE" = 1 ] && echo "ok    $1"
  return 0
}

fail() {
  failed=$((failed + 1))
  echo "FAIL  $1"
  if [ -s "$tmp/log" ]; then
    grep -m 3 -i 'error' "$tmp/log" | sed 's/^/        /'
  fi
}

# compile LANG FILE EXTRA-FLAGS... ; returns the compiler's status
compile() {
  lang=$1
  file=$2
  shift 2
  if [ "$lang" = c ]; then
    # shellcheck disable=SC2086  # CC and CFLAGS are word lists on purpose
    $CC $CFLAGS -I"$include" "$@" -c "$file" -o "$tmp/out.o" >"$tmp/log" 2>&1
  else
    # shellcheck disable=SC2086
    $CXX $CXXFLAGS -x c++ -I"$include" "$@" -c "$file" -o "$tmp/out.o" >"$tmp/log" 2>&1
  fi
}

languages=c
if [ -n "$CXX" ]; then languages="c c++"; fi

# The compilers themselves must work, or every "must fail" would pass.
for lang in $languages; do
  if [ "$lang" = c ]; then compiler=$CC; else compiler=$CXX; fi
  printf 'int main(void) { return 0; }\n' >"$tmp/empty.c"
  if ! compile "$lang" "$tmp/empty.c"; then
    echo "run.sh: the $lang compiler ($compiler) cannot compile an empty program:" >&2
    cat "$tmp/log" >&2
    exit 2
  fi
done

for lang in $languages; do
  # control.c: every accepted key type, every macro
  if compile "$lang" "$here/control.c"; then
    pass "control.c compiles as $lang"
  else
    fail "control.c does not compile as $lang (the header or the flags are broken)"
  fi

  for file in "$here"/*.c; do
    name=$(basename "$file")
    [ "$name" = control.c ] && continue
    wanted=$(sed -n 's|^/\* languages: \(.*\) \*/$|\1|p' "$file" | head -n 1)
    [ -n "$wanted" ] || wanted="c c++"
    case " $wanted " in
      *" $lang "*) ;;
      *) continue ;;
    esac
    for op in 1 2 3; do
      case $op in 1) macro=SLATE_SET ;; 2) macro=SLATE_GET ;; *) macro=SLATE_DELETE ;; esac
      if compile "$lang" "$file" -DSLATE_CF_OP=$op -DSLATE_CF_CONTROL; then
        pass "$name $macro as $lang: compiles with an accepted key"
      else
        fail "$name $macro as $lang: does not compile even with an accepted key (the test is broken)"
      fi
      if compile "$lang" "$file" -DSLATE_CF_OP=$op; then
        fail "$name $macro as $lang: compiles, but the key type must be rejected"
      else
        pass "$name $macro as $lang: rejected"
        if [ "$VERBOSE" = 1 ]; then
          grep -m 1 -i 'error' "$tmp/log" | sed 's/^/        /'
        fi
      fi
    done
  done
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
