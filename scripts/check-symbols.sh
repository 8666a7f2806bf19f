#!/usr/bin/env bash
# Checks what the built libraries export: slate*/slotmap* only.
#   - libslate.so: its dynamic symbol table;
#   - libslate.a: every symbol a member defines globally (the Rust runtime
#     inside it, compiler-rt's intrinsics included, is local:
#     scripts/localize-archive.sh), and each of the shared library's
#     exports is among them.
# readelf, not nm: binutils' nm hands members with LLVM bitcode to an LLVM
# linker plugin when one is installed (scripts/check-archive-nm.sh checks
# that it need not).
# Usage: check-symbols.sh libslate.a libslate.so
set -u
static=$1 shared=$2
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
# (The first 20 failures are shown.)
bad() { fail=$((fail + 1)); [ "$fail" -gt 20 ] || echo "  unexpected export: $1"; }
missing() { fail=$((fail + 1)); [ "$fail" -gt 20 ] || echo "  not exported: $1"; }

# Shared library: the dynamic symbol table only.
while read -r sym; do
  case $sym in slate*|slotmap*) ok ;; *) bad "$shared: $sym" ;; esac
done < <(nm -D --defined-only "$shared" | awk 'NF == 3 { print $3 }')

# Static library: the symbols each member defines globally (GLOBAL or
# WEAK, not UND), as "member symbol".
defined=$(readelf -sW "$static" |
  awk '/^File: / { member = $2 }
       NF >= 8 && ($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" { print member, $8 }')
if [ -z "$defined" ]; then
  bad "$static: readelf lists no defined global symbol"
fi
while read -r member sym; do
  [ -n "$sym" ] || continue
  case $sym in slate*|slotmap*) ok ;; *) bad "$member: $sym" ;; esac
done <<<"$defined"
# ... and every export of the shared library is one of them.
while read -r sym; do
  if grep -q " $sym\$" <<<"$defined"; then ok; else missing "$static: $sym"; fi
done < <(nm -D --defined-only "$shared" | awk 'NF == 3 { print $3 }')

echo "symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
