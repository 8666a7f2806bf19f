#!/usr/bin/env bash
# Builds the library for another target and runs the test suites there,
# under an emulator: every C suite of c-tests/suites.list (C11), the seed
# check (two runs must differ), the golden snapshots written here and read
# by the native program (not on Windows), the archive linked beside another Rust
# static library (c-tests/abi/beside-rust; not on Windows), the C++ suites of
# cpp-tests/ (C++17) and the Rust tests, each recording its `N passed, M
# failed` line through run-suite.sh as <short>-<suite>.
#
# Usage: cross.sh TARGET [PART...]   PART: c, cpp, rust (default: all three)
#   s390x-unknown-linux-gnu    big-endian, 64-bit; qemu-s390x
#   aarch64-unknown-linux-gnu  ARM, 64-bit; qemu-aarch64
#   i686-unknown-linux-gnu     32-bit pointers and size_t; natively, with the
#                              cross toolchain's loader and libraries (Debian's
#                              gcc-multilib conflicts with its cross compilers,
#                              and qemu-i386 7.2 hangs on 64-bit atomics shared
#                              by threads)
#   x86_64-pc-windows-gnu      mingw-w64; wine, in a fresh WINEPREFIX
# The random suites take fewer steps than natively (RANDOM_STEPS).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
target=$1; shift
parts=("$@"); [ ${#parts[@]} -gt 0 ] || parts=(c cpp rust)
steps=${RANDOM_STEPS:-50000}
exe=""
case "$target" in
  s390x-unknown-linux-gnu)   short=s390x   tool=s390x-linux-gnu   run=(qemu-s390x -L /usr/s390x-linux-gnu) ;;
  aarch64-unknown-linux-gnu) short=aarch64 tool=aarch64-linux-gnu run=(qemu-aarch64 -L /usr/aarch64-linux-gnu) ;;
  i686-unknown-linux-gnu)    short=i686    tool=i686-linux-gnu    run=() ;;
  x86_64-pc-windows-gnu)     short=windows tool=x86_64-w64-mingw32 run=(wine) exe=.exe ;;
  *) echo "cross.sh: unknown target $target" >&2; exit 2 ;;
esac
cc=$tool-gcc cxx=$tool-g++
# mingw's default C++ threads model (win32) has no std::thread.
[ "$short" = windows ] && cc=$tool-gcc-posix cxx=$tool-g++-posix
var=$(echo "$target" | tr 'a-z-' 'A-Z_')
export "CARGO_TARGET_${var}_LINKER=$cc"
out=build/cross/$short
mkdir -p "$out"
lib=target/$target/release/libslate.a
status=0

if [ "$short" = windows ]; then
  # wine needs its prefix initialized before a program's output can be
  # trusted, and lacks bcryptprimitives.dll (ProcessPrng), which Rust's
  # standard library imports: the test-only shim goes into the prefix.
  export WINEPREFIX=$root/build/cross/wineprefix WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n"
  if [ ! -f "$WINEPREFIX/system.reg" ]; then
    rm -rf "$WINEPREFIX"
    wineboot --init >/dev/null 2>&1
    wineserver -w
  fi
  $cc -O2 -Wall -Wextra -Werror -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
    c-tests/abi/cross/bcryptprimitives.c -ladvapi32 || exit 1
  # The stack of a Linux main thread (8 MiB), not Windows' 1 MiB:
  # abi/walks nests walks 1,000 deep.
  link_extra=(-static-libgcc -static -Wl,--stack,8388608)
elif [ "$short" = i686 ]; then
  # A 32-bit program runs on the x86-64 kernel as it is, given the loader
  # and libraries of the cross toolchain's sysroot.
  sysroot=/usr/i686-linux-gnu/lib
  link_extra=("-Wl,--dynamic-linker=$sysroot/ld-linux.so.2" "-Wl,-rpath,$sysroot")
  export "CARGO_TARGET_${var}_RUSTFLAGS=-Clink-arg=-Wl,--dynamic-linker=$sysroot/ld-linux.so.2 -Clink-arg=-Wl,-rpath,$sysroot"
else
  link_extra=()
fi
[ ${#run[@]} -eq 0 ] || export "CARGO_TARGET_${var}_RUNNER=${run[*]}"

prefix=$short
# shellcheck source=scripts/suites.sh
. "$root/scripts/suites.sh"

for part in "${parts[@]}"; do
  case "$part" in
    c|cpp)
      scripts/build-lib.sh --target "$target" || { unbuilt library; exit 1; }
      read -r -a native <"target/$target/release/native-static-libs"
      ;;
  esac
  case "$part" in
    c)
      while read -r s flags <&3; do
        mapfile -t units < <(suite_units "$s")
        mkdir -p "$(dirname "$out/$s")"
        $cc -std=c11 -Wall -Wextra -Werror -O1 -Iinclude "${units[@]}" "$lib" "${native[@]}" "${link_extra[@]}" \
          -o "$out/$s$exe" || { unbuilt "$s"; continue; }
        case " $flags " in
          *" seeded "*) suite "$s" "${run[@]}" "$out/$s$exe" "$((RANDOM * 32768 + RANDOM))" "$steps" ;;
          *) suite "$s" "${run[@]}" "$out/$s$exe" ;;
        esac
      done 3< <(c_suites) # (fd 3: the programs run keep their stdin)
      suite seeds-differ bash c-tests/abi/seeds-differ.sh "${run[@]}" "$out/abi/seeds$exe"
      # Every golden recipe saved here and loaded by the native program
      # (c-tests/snapshots/README): snapshots of this byte order and
      # pointer width read on x86-64.
      if [ "$short" != windows ]; then
        rm -rf "$out/snapshots" && mkdir -p "$out/snapshots"
        if make --no-print-directory -s "build/abi/golden-c-static" >/dev/null; then
          suite golden-written bash -c '"${@:3}" write "$1" && "$2" check "$1"' _ \
            "$out/snapshots" ./build/abi/golden-c-static "${run[@]}" "$out/abi/golden$exe"
        else
          unbuilt golden-written
        fi
      fi
      # The archive beside another Rust static library, --whole-archive
      # included (not on Windows, whose archive is rustc's own: docs/INSTALL.md).
      if [ "$short" != windows ]; then
        suite beside-rust env CC="$cc" TARGET="$target" LDFLAGS="${link_extra[*]}" \
          bash c-tests/abi/beside-rust/run.sh "$lib" "${run[@]}"
      fi
      ;;
    cpp)
      for s in test_cpp test_hpp; do
        $cxx -std=c++17 -Wall -Wextra -Werror -O1 -Iinclude -Ic-tests/support "cpp-tests/$s.cpp" "$lib" "${native[@]}" \
          "${link_extra[@]}" -static-libstdc++ -o "$out/$s$exe" || { unbuilt "$s"; continue; }
        suite "$s" "${run[@]}" "$out/$s$exe"
      done
      ;;
    rust)
      suite cargo scripts/cargo-test.sh --release --tests --target "$target"
      ;;
  esac
done
exit "$status"
