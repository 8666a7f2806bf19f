#!/usr/bin/env bash
# Links libslate.a beside another Rust static library and runs the
# program (main.c), which calls into both. The other library is the crate
# other/lib.rs, built here as any Rust project builds a staticlib: its
# runtime (std, panic runtime, allocator shims, compiler-rt) global, as
# rustc writes it. libslate.a defines only slate*/slotmap*, so the two link
# without one multiple definition: with -Wl,--whole-archive in either
# order, and plainly. Each link must succeed without "multiple definition"
# and its program must pass.
# Usage: c-tests/abi/beside-rust/run.sh [libslate.a [RUNNER...]]
#   libslate.a  default target/release/libslate.a
#   RUNNER      what runs the program (scripts/cross.sh: qemu-user)
# Environment: CC (the C compiler, default gcc), TARGET (a Rust target to
# build the other library for, default the host's), LDFLAGS (more flags
# for the links).
set -u
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/c-tests/abi/beside-rust
lib=$(realpath "${1:-$root/target/release/libslate.a}")
runner=("${@:2}")
target=${TARGET:-}
out=$root/build/beside-rust/${target:-host}
cc=${CC:-gcc}
read -r -a ldflags <<<"${LDFLAGS:-}"
passed=0 failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAILED: $*" >&2; }
show() { cut -c 1-240 "$1" | sed 's/^/  | /' | head -n 8 >&2; }

mkdir -p "$out/other"
# A throwaway crate: its manifest points at the source here.
cat >"$out/other/Cargo.toml" <<EOF
[package]
name = "other"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "$here/other/lib.rs"
crate-type = ["staticlib"]

[workspace]
EOF
if [ -n "$target" ]; then
  cargo_target=(--target "$target") other=$out/target/$target/release/libother.a
else
  cargo_target=() other=$out/target/release/libother.a
fi
if ${CARGO:-cargo} build --release --offline --quiet --manifest-path "$out/other/Cargo.toml" \
     --target-dir "$out/target" "${cargo_target[@]}" >"$out/cargo.log" 2>&1 && [ -f "$other" ]; then ok; else
  bad "cargo build of the other library"; show "$out/cargo.log"
  echo "beside-rust: $passed passed, $failed failed"
  exit 1
fi
# The system libraries both need (rustc's list for libslate.a; the other
# library's are the standard library's, the same).
read -r -a native <"$(dirname "$lib")/native-static-libs"

if $cc -std=c11 -Wall -Wextra -Werror -O1 -I"$root/include" -c "$here/main.c" \
     -o "$out/main.o" 2>"$out/cc.log"; then ok; else bad "main.c does not compile"; show "$out/cc.log"; fi

link() { # NAME ARCHIVES...
  local name=$1; shift
  local log=$out/$name.log prog=$out/$name
  rm -f "$prog"
  if $cc "$out/main.o" "$@" "${native[@]}" "${ldflags[@]}" -o "$prog" >"$log" 2>&1; then ok; else
    bad "$name: link failed"
  fi
  local dups
  dups=$(grep -c 'multiple definition' "$log")
  if [ "$dups" -eq 0 ]; then ok; else bad "$name: $dups multiple definitions"; show "$log"; fi
  if [ -x "$prog" ]; then
    if "${runner[@]}" "$prog" >"$log" 2>&1; then ok; else bad "$name: the program failed"; show "$log"; fi
  else
    bad "$name: no program to run"
  fi
}
link whole-slate-first -Wl,--whole-archive "$lib" "$other" -Wl,--no-whole-archive
link whole-other-first -Wl,--whole-archive "$other" "$lib" -Wl,--no-whole-archive
link plain "$lib" "$other"

echo "beside-rust: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
