#!/usr/bin/env bash
# Builds the library for a WebAssembly target and runs the test suites
# there: every C suite of c-tests/suites.list (C11), the C++ suites of
# cpp-tests/ (C++17), the seed check (two runs must differ) and, on WASI,
# the Rust tests; each records its `N passed, M failed` line through
# run-suite.sh as <target>-<suite>.
#
# Usage: wasm.sh wasi|emscripten [PART...]   PART: c, cpp, rust (default: all)
#   wasi        wasm32-wasip1; clang-14 --target=wasm32-wasi with Debian's
#               wasi-libc and libc++ (no exceptions, no threads there);
#               run under wasmtime (scripts/wasi-run.py)
#   emscripten  wasm32-unknown-emscripten; Debian's emcc/em++ with wasm
#               exceptions; run under Node.js
# The random suites take fewer steps than natively (RANDOM_STEPS).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
which=$1; shift
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(c cpp rust)
steps=${RANDOM_STEPS:-50000}
warn=(-Wall -Wextra -Werror)
case "$which" in
  wasi)
    target=wasm32-wasip1 ext=wasm
    # clock() (the random suites time themselves) needs wasi-libc's
    # emulation: WASI has no process clock.
    clock=(-D_WASI_EMULATED_PROCESS_CLOCKS -lwasi-emulated-process-clocks)
    # The stack of a native thread (8 MiB), not wasm-ld's 64 KiB:
    # abi/walks nests walks 1,000 deep.
    stack=(-Wl,-z,stack-size=8388608)
    cc=(clang-14 --target=wasm32-wasi -O1 "${clock[@]}" "${stack[@]}")
    cxx=(clang++-14 --target=wasm32-wasi -O1 -fno-exceptions "${clock[@]}" "${stack[@]}")
    run=(python3 "$root/scripts/wasi-run.py")
    export CARGO_TARGET_WASM32_WASIP1_RUNNER="python3 $root/scripts/wasi-run.py"
    ;;
  emscripten)
    target=wasm32-unknown-emscripten ext=js
    # emcc finds its JavaScript dependencies in Debian's node modules.
    export NODE_PATH=/usr/share/nodejs
    # The stack of a native thread (8 MiB), not Emscripten's 64 KiB:
    # abi/walks nests walks 1,000 deep.
    flags=(-O1 -fwasm-exceptions -sWASM_BIGINT -sALLOW_MEMORY_GROWTH -sEXIT_RUNTIME -sTOTAL_STACK=8388608)
    cc=(emcc "${flags[@]}")
    cxx=(em++ "${flags[@]}")
    run=(node --no-experimental-fetch)
    ;;
  *) echo "wasm.sh: unknown target $which (wasi or emscripten)" >&2; exit 2 ;;
esac
out=build/wasm/$which
mkdir -p "$out"
lib=target/$target/release/libslate.a
status=0

prefix=$which
# shellcheck source=scripts/suites.sh
. "$root/scripts/suites.sh"

for part in "${parts[@]}"; do
  case "$part" in
    c|cpp) scripts/build-lib.sh --target "$target" || { unbuilt library; exit 1; } ;;
  esac
  case "$part" in
    c)
      while read -r s flags <&3; do
        if [ "$which" = wasi ] && [[ " $flags " == *" no-wasi "* ]]; then
          continue
        fi
        mapfile -t units < <(suite_units "$s")
        mkdir -p "$(dirname "$out/$s")"
        "${cc[@]}" -std=c11 "${warn[@]}" -Iinclude "${units[@]}" "$lib" -o "$out/$s.$ext" || { unbuilt "$s"; continue; }
        case " $flags " in
          *" seeded "*) suite "$s" "${run[@]}" "$out/$s.$ext" "$((RANDOM * 32768 + RANDOM))" "$steps" ;;
          *) suite "$s" "${run[@]}" "$out/$s.$ext" ;;
        esac
      done 3< <(c_suites) # (fd 3: the programs run keep their stdin)
      suite seeds-differ bash c-tests/abi/seeds-differ.sh "${run[@]}" "$out/abi/seeds.$ext"
      ;;
    cpp)
      for s in test_cpp test_hpp; do
        "${cxx[@]}" -std=c++17 "${warn[@]}" -Iinclude -Ic-tests/support "cpp-tests/$s.cpp" "$lib" -o "$out/$s.$ext" \
          || { unbuilt "$s"; continue; }
        suite "$s" "${run[@]}" "$out/$s.$ext"
      done
      ;;
    rust)
      if [ "$which" = wasi ]; then
        suite cargo scripts/cargo-test.sh --release --tests --target "$target"
      fi
      ;;
  esac
done
exit "$status"
