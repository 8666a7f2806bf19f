#!/usr/bin/env bash
# slate.hpp's negative tests: every SLATE_HPP_COMPILE_FAIL case in
# cpp-tests/test_hpp.cpp must fail to compile, and the file without one must
# compile (so a failure comes from the case, not from a broken build); and
# under C++11 and C++14 the header stops with one clear #error.
# Usage: compile-fail.sh [CXX]
set -u
cxx=${1:-${CXX:-g++}}
flags=(-std=c++17 -Iinclude -Ic-tests/support -fsyntax-only -Wall -Wextra -Werror)
pass=0 fail=0
if "$cxx" "${flags[@]}" cpp-tests/test_hpp.cpp; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "control: test_hpp.cpp does not compile"; fi
cases=$(grep -oE 'SLATE_HPP_COMPILE_FAIL == [0-9]+' cpp-tests/test_hpp.cpp | awk '{print $3}' | sort -un)
for n in $cases; do
  if "$cxx" "${flags[@]}" -DSLATE_HPP_COMPILE_FAIL="$n" cpp-tests/test_hpp.cpp 2>/dev/null; then
    fail=$((fail + 1)); echo "case $n compiled but must not"
  else
    pass=$((pass + 1))
  fi
done
# Below C++17 the header stops with its one #error, not pages of others.
for std in c++11 c++14; do
  out=$(printf '#include "slate.hpp"\nint main() { return 0; }\n' |
    "$cxx" -std=$std -Iinclude -fsyntax-only -x c++ - 2>&1)
  if [ $? -ne 0 ] && [ "$(grep -c ': error' <<<"$out")" -eq 1 ] && grep -q 'needs C++17' <<<"$out"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "-std=$std: slate.hpp must stop with its one #error"; echo "$out" | head -5
  fi
done
echo "hpp-compile-fail: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
