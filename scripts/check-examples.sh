#!/usr/bin/env bash
# Builds every program in examples/ against the static library as a user
# would (C11 with $CC, C++17 with $CXX, warnings as errors), runs it, and
# compares its output with examples/expected/<name>.txt.
# Ends with `N passed, M failed`.
set -u
cd "$(dirname "$0")/.."
CC=${CC:-gcc} CXX=${CXX:-g++}
out=build/examples
mkdir -p "$out"
libs="target/release/libslate.a -lpthread -ldl -lm"
warn="-Wall -Wextra -Werror -Wpedantic"
passed=0 failed=0
for src in examples/*.c examples/*.cpp; do
  name=$(basename "$src")
  name=${name%.c}
  case "$src" in
    *.cpp) name=${name%.cpp}-cpp
           build="$CXX -std=c++17 $warn -O1 -g -Iinclude $src $libs -o $out/$name" ;;
    *) build="$CC -std=c11 $warn -O1 -g -Iinclude $src $libs -o $out/$name" ;;
  esac
  args=()
  [ -f "examples/$name.args" ] && read -r -a args <"examples/$name.args"
  expected=examples/expected/$name.txt
  if ! $build; then
    echo "FAILED: $name does not build"; failed=$((failed + 1)); continue
  fi
  if ! "$out/$name" "${args[@]}" >"$out/$name.out"; then
    echo "FAILED: $name exits non-zero"; failed=$((failed + 1)); continue
  fi
  if [ ! -f "$expected" ]; then
    echo "FAILED: $name has no $expected"; failed=$((failed + 1))
  elif diff -u "$expected" "$out/$name.out"; then
    echo "$name: output as expected"; passed=$((passed + 1))
  else
    echo "FAILED: $name's output differs from $expected"; failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
