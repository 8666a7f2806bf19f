#!/usr/bin/env bash
# Checks that binutils' nm reads libslate.a on a machine with an LLVM
# linker plugin in /usr/lib/bfd-plugins (Debian's llvm-14-linker-tools puts
# LLVMgold-14.so there; scripts/setup.sh installs it): nm hands that plugin
# every member carrying LLVM bitcode (.llvmbc), and a plugin of another
# LLVM than rustc's fails on it ("LLVM gold plugin has failed to create LTO
# module") and lists none of the member's symbols. So: no member carries
# bitcode, nm says nothing on stderr and exits 0, and it lists every export
# of libslate.so as defined in the archive.
# Usage: check-archive-nm.sh libslate.a libslate.so
set -u
static=$1 shared=$2
plugins=/usr/lib/bfd-plugins
pass=0 fail=0
ok()  { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); [ "$fail" -gt 20 ] || echo "  $1"; }

# Without an LLVM plugin nm never meets the bitcode: the check proves nothing.
if compgen -G "$plugins/LLVMgold*.so" >/dev/null; then ok; else
  bad "no LLVM linker plugin in $plugins (scripts/setup.sh installs llvm-14-linker-tools)"
fi

# No member carries bitcode.
if readelf -SW "$static" | grep -qE ' \.llvm(bc|cmd) '; then
  bad "$static: a member carries LLVM bitcode (.llvmbc)"
else ok; fi

err=$(mktemp)
trap 'rm -f "$err"' EXIT
listed=$(nm -g --defined-only "$static" 2>"$err")
status=$?
if [ "$status" -eq 0 ]; then ok; else bad "nm $static exited $status"; fi
if [ -s "$err" ]; then bad "nm $static: $(head -n 1 "$err")"; else ok; fi

# Every export of the shared library, defined in the archive (as T).
while read -r sym; do
  if grep -qx "[0-9a-f]* T $sym" <<<"$listed"; then ok; else bad "nm does not list $sym"; fi
done < <(nm -D --defined-only "$shared" | awk 'NF == 3 { print $3 }')

echo "archive-nm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
