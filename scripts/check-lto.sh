#!/usr/bin/env bash
# Checks the README's cross-language-LTO recipe: in BINARY (c-tests/abi/lto/
# probe.c built with it), every probe_<name> function must have the library
# call it makes inlined, that is contain no call or jump to slate_<name> /
# slotmap_<name>. Prints one line per probe and a closing
# "N passed, M failed" line for scripts/run-suite.sh.
# Usage: check-lto.sh BINARY
set -u
bin=$1
passed=0 failed=0
dis=$(objdump -d --no-show-raw-insn "$bin") || { echo "0 passed, 1 failed"; exit 1; }
probes=$(printf '%s\n' "$dis" | sed -n 's/^[0-9a-f]* <\(probe_[a-z0-9_]*\)>:$/\1/p')
[ -n "$probes" ] || { echo "no probe_* functions in $bin"; echo "0 passed, 1 failed"; exit 1; }
for p in $probes; do
    name=${p#probe_}
    case $name in slotmap_*) target=$name ;; *) target=slate_$name ;; esac
    body=$(printf '%s\n' "$dis" | awk -v f="<$p>:" '$2 == f {on = 1; next} on && /^$/ {exit} on')
    if printf '%s\n' "$body" | grep -Eq "(call|jmp)[a-z]* +[0-9a-f]+ <$target(@plt)?>"; then
        echo "FAILED: $p still calls $target"
        failed=$((failed + 1))
    else
        echo "ok: $target inlined into $p"
        passed=$((passed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
