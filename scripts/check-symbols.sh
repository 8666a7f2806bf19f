#!/usr/bin/env bash
# Checks what the built libraries export: slate*/slotmap* only, beyond what
# the Rust runtime cannot avoid in a static library:
#   - the allocator shims __rust_alloc, __rust_dealloc, __rust_realloc,
#     __rust_alloc_zeroed, __rust_no_alloc_shim_is_unstable_v2, which rustc
#     mangles into its own namespace (_RNv..___rustc..___rust_*);
#   - compiler-rt's intrinsics (__absvdi2, __popcountdi2, ...), each in its
#     own archive member, linked only when referenced, as libgcc's are.
# Usage: check-symbols.sh libslate.a libslate.so
set -u
static=$1 shared=$2
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "  unexpected export: $1"; }

# Shared library: the dynamic symbol table only.
while read -r sym; do
  case $sym in slate*|slotmap*) ok ;; *) bad "$shared: $sym" ;; esac
done < <(nm -D --defined-only "$shared" | awk 'NF == 3 { print $3 }')

# Static library: global symbols per archive member.
while read -r member sym; do
  case $sym in
    slate*|slotmap*) ok ;;
    _RNv*___rustc*___rust_*) ok ;;
    __*) case $member in *.rcgu.o) bad "$static($member): $sym" ;; *) ok ;; esac ;;
    *) bad "$static($member): $sym" ;;
  esac
done < <(nm -g --defined-only -A "$static" 2>/dev/null |
         awk 'NF == 3 { n = split($1, a, ":"); print a[n - 1], $3 }')

echo "symbols: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
