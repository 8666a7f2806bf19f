#!/usr/bin/env bash
# Rewrites the static library rustc wrote into one object that defines only
# slate's own symbols, so that it links beside any other Rust static
# library (even with --whole-archive) and binutils' nm reads it with an LLVM
# linker plugin installed. rustc's archive holds one member per crate of
# the Rust runtime (std, core, alloc, compiler-rt's intrinsics, ...), each
# defining its symbols globally, and embeds LLVM bitcode (.llvmbc) beside
# the machine code, which such a plugin fails to read.
#
#   1. objcopy drops the bitcode (.llvmbc, .llvmcmd) from every member;
#   2. `ld -r` links the members into one relocatable object, keeping only
#      what slate's functions reach (--gc-sections, from slate*/slotmap*;
#      .init_array and the unwind tables of what is kept stay), each input
#      section kept as its own output section (--unique), so that a
#      program's --gc-sections still drops what it does not call;
#   3. objcopy makes every defined symbol but slate*/slotmap* local (an
#      undefined one, such as libc's, stays undefined, weak or global as
#      the members had it; those the collection left unreferenced go),
#      drops the address-significance tables (their symbol indices no
#      longer hold) and dissolves the section groups ld -r kept
#      (rust_eh_personality's DW.ref pointer, which another Rust library's
#      group of the same name would otherwise replace);
#   4. the undefined symbols' bindings are checked against the members';
#   5. ar packs that object into the archive.
# The machine code is rustc's, unchanged; .eh_frame and the exception
# tables come through (unwinding works as before).
#
# Done for the Linux targets (x86-64 with the host's binutils; aarch64,
# s390x and i686 with their cross toolchains', as scripts/cross.sh uses
# them); without that toolchain, and on Windows and WebAssembly, the
# archive is left as rustc wrote it (docs/INSTALL.md says so).
# Usage: localize-archive.sh TARGET ARCHIVE
set -euo pipefail
target=$1 lib=$2
# The binutils that read the target's objects: the host's, or the cross
# toolchain's (scripts/cross.sh links with its gcc).
case "$target" in
  x86_64-unknown-linux-gnu) bin= ;;
  aarch64-unknown-linux-gnu) bin=aarch64-linux-gnu- ;;
  s390x-unknown-linux-gnu) bin=s390x-linux-gnu- ;;
  i686-unknown-linux-gnu) bin=i686-linux-gnu- ;;
  *) exit 0 ;;
esac
# (GNU ld: lld has no --unique.)
if ! "${bin}ld" --version 2>/dev/null | grep -q '^GNU ld'; then
  echo "localize-archive.sh: no GNU ${bin}ld: $lib is left as rustc wrote it" >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${bin}objcopy" -R .llvmbc -R .llvmcmd "$lib" "$work/code.a"
# slate's own symbols: every slate*/slotmap* a member defines globally.
"${bin}readelf" -sW "$work/code.a" |
  awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" && $8 ~ /^(slate|slotmap)/ { print $8 }' |
  sort -u >"$work/keep"
if [ ! -s "$work/keep" ]; then
  echo "localize-archive.sh: $lib defines no slate*/slotmap* symbol" >&2
  exit 1
fi
mapfile -t roots < <(sed 's/^/--require-defined=/' "$work/keep")
"${bin}ld" -r --unique --gc-sections "${roots[@]}" --whole-archive "$work/code.a" -o "$work/all.o"
# What the collection left unreferenced, ld lists as a local undefined
# symbol, which objcopy would write back as a global one (binding a
# program to, say, pidfd_spawnp, which std only references weakly): gone.
"${bin}readelf" -sW "$work/all.o" | awk '$5 == "LOCAL" && $7 == "UND" && NF >= 8 { print $8 }' >"$work/unused"
"${bin}objcopy" --keep-global-symbols="$work/keep" --strip-symbols="$work/unused" -R .llvm_addrsig -R .group \
  "$work/all.o" "$work/slate.o"
# Every symbol left undefined is bound as the members bound it: weak where
# each reference was weak, global where one was not.
undefined() { "${bin}readelf" -sW "$1" | awk '$7 == "UND" && NF >= 8 { print $8, $5 }'; }
bindings=$(undefined "$work/code.a" | sort -u |
  awk '{ b[$1] = (b[$1] == "GLOBAL" || $2 == "GLOBAL") ? "GLOBAL" : "WEAK" } END { for (s in b) print s, b[s] }')
while read -r sym bind; do
  if ! grep -qx "$sym $bind" <<<"$bindings"; then
    echo "localize-archive.sh: $sym is undefined $bind in the result, not as in $lib" >&2
    exit 1
  fi
done < <(undefined "$work/slate.o")
"${bin}ar" rcsD "$work/libslate.a" "$work/slate.o"
mv -f "$work/libslate.a" "$lib"
