#!/usr/bin/env bash
# Installs what `make test` needs, when it is missing: cbindgen, valgrind,
# clang, clang-22, lld-22, tmux, cmake, pkg-config, meson, ninja, an LLVM
# linker plugin for binutils (llvm-14-linker-tools), the s390x, aarch64,
# i686 and mingw-w64 cross compilers, qemu-user, wine, clang-14 with
# wasi-libc and libc++ for wasm32, and Emscripten from Debian's packages;
# wasmtime from PyPI; the wasm and cross Rust targets, rustfmt and clippy,
# and nightly with Miri. Quick and silent when everything is there. (`make demo` needs
# none of it: only cargo and a C compiler.)
set -eu
need=()
command -v cbindgen >/dev/null || need+=(cbindgen)
command -v valgrind >/dev/null || need+=(valgrind)
command -v clang    >/dev/null || need+=(clang)
# clang and lld of Rust's LLVM, for the cross-language-LTO tests.
command -v clang-22 >/dev/null || need+=(clang-22)
command -v ld.lld-22 >/dev/null || need+=(lld-22)
command -v g++      >/dev/null || need+=(g++)
command -v tmux     >/dev/null || need+=(tmux)
# make test-cross: cross compilers, qemu-user and wine.
for t in s390x-linux-gnu aarch64-linux-gnu i686-linux-gnu; do
  command -v $t-g++ >/dev/null || need+=(gcc-$t g++-$t)
done
command -v x86_64-w64-mingw32-g++-posix >/dev/null || need+=(gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)
command -v qemu-s390x >/dev/null || need+=(qemu-user)
command -v wine >/dev/null || need+=(wine wine64)
# make test-wasm: clang 14 with wasi-libc and libc++ for wasm32-wasi, and
# Emscripten (with Node.js, which the machine has).
command -v clang-14 >/dev/null || need+=(clang-14)
command -v wasm-ld-14 >/dev/null || need+=(lld-14)
[ -f /usr/lib/wasm32-wasi/libc.a ] || need+=(wasi-libc)
[ -n "$(ls /usr/lib/llvm-14/lib/clang/*/lib/wasi/libclang_rt.builtins-wasm32.a 2>/dev/null)" ] \
  || need+=(libclang-rt-14-dev-wasm32)
[ -f /usr/lib/wasm32-wasi/libc++.a ] || need+=(libc++-14-dev-wasm32 libc++abi-14-dev-wasm32)
command -v emcc >/dev/null || need+=(emscripten)
# make symbols: an LLVM linker plugin where binutils' nm loads it, to show
# that nm reads libslate.a beside one (scripts/check-archive-nm.sh).
compgen -G '/usr/lib/bfd-plugins/LLVMgold*.so' >/dev/null || need+=(llvm-14-linker-tools)
# The install tests: a user's CMake and pkg-config builds.
command -v cmake    >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
# The install tests: a user's Meson builds.
command -v meson    >/dev/null || need+=(meson)
command -v ninja    >/dev/null || need+=(ninja-build)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
installed=$(rustup target list --installed)
for t in wasm32-wasip1 wasm32-unknown-emscripten s390x-unknown-linux-gnu aarch64-unknown-linux-gnu i686-unknown-linux-gnu \
         x86_64-pc-windows-gnu; do
  if ! grep -qx "$t" <<<"$installed"; then
    echo "setup: adding the $t target"
    rustup target add "$t"
  fi
done
# The WASI runtime: wasmtime's Python package (scripts/wasi-run.py).
if ! python3 -c 'import wasmtime' 2>/dev/null; then
  echo "setup: installing wasmtime (PyPI)"
  python3 -m pip install --quiet --disable-pip-version-check wasmtime
fi
# Miri runs the core's unit tests; it needs a nightly toolchain.
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
  echo "setup: installing nightly with miri"
  rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done
