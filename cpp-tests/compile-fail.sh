#!/usr/bin/env bash
# slate.hpp's negative tests: every SLATE_HPP_COMPILE_FAIL case in
# cpp-tests/test_hpp.cpp must fail to compile, and the file without one must
# compile (so a failure comes from the case, not from a broken build).
# Usage: compile-fail.sh [CXX]
set -u
cxx=${1:-${CXX:-g++}}
flags=(-std=c++17 -Iinclude -Ic-tests -fsyntax-only -Wall -Wextra -Werror)
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
echo "hpp-compile-fail: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
