#!/usr/bin/env bash
# Installs what `make test` needs, when it is missing: cbindgen, valgrind,
# clang, clang-22, lld-22, tmux, cmake and pkg-config from Debian's
# packages, the wasm32-wasip1 Rust target, rustfmt and clippy, and nightly
# with Miri. Quick and silent when everything is there. (`make demo` needs
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
# The install tests: a user's CMake and pkg-config builds.
command -v cmake    >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi
if ! rustup target list --installed | grep -qx wasm32-wasip1; then
  echo "setup: adding the wasm32-wasip1 target"
  rustup target add wasm32-wasip1
fi
# Miri runs the core's unit tests; it needs a nightly toolchain.
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^miri'; then
  echo "setup: installing nightly with miri"
  rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done
