#!/usr/bin/env python3
"""Checks that no exported function of libslate.so can unwind into C.

Most C entry points run their body under `catch_unwind` (`guard` in
src/ffi/mod.rs). The hot lookups (`slate_get*`, `slotmap_get`, ...) and the
in-place paths of `slotmap_insert`/`slotmap_erase` do not: they allocate
nothing, run no user code and are written without panicking operations.

rustc gives every `extern "C"` function whose body may unwind a landing pad
that calls `core::panicking::panic_cannot_unwind` (an abort). When LLVM
proves the body cannot unwind, that landing pad is deleted. So: an exported
function whose machine code still calls `panic_cannot_unwind` has a path on
which a panic would escape its guard, and this check fails.

Calls in the shared library go through the GOT (`call *0x..(%rip)`), so the
GOT slots are resolved through the dynamic relocations first.

Usage: check-unwind.py libslate.so
"""
import re
import subprocess
import sys


def run(*args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def main(lib):
    # Address -> symbol for every function in the library.
    names = {}
    for line in run("nm", "--defined-only", lib).splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            names.setdefault(int(parts[0], 16), parts[2])
    targets = {a for a, n in names.items() if "panic_cannot_unwind" in n}
    if not targets:
        print("unwind: panic_cannot_unwind not found in", lib)
        return 1

    # GOT slot -> the function it holds (R_X86_64_RELATIVE *ABS*+addr).
    got = {}
    for line in run("objdump", "-R", lib).splitlines():
        m = re.match(r"([0-9a-f]+)\s+R_X86_64_RELATIVE\s+\*ABS\*\+0x([0-9a-f]+)", line)
        if m:
            got[int(m.group(1), 16)] = int(m.group(2), 16)

    exported = {
        line.split()[2]
        for line in run("nm", "-D", "--defined-only", lib).splitlines()
        if len(line.split()) == 3
    }

    passed = failed = 0
    current = None
    offenders = set()
    for line in run("objdump", "-d", "--no-show-raw-insn", lib).splitlines():
        m = re.match(r"[0-9a-f]+ <(.+)>:$", line)
        if m:
            current = m.group(1) if m.group(1) in exported else None
            continue
        if current is None or "call" not in line:
            continue
        callee = None
        m = re.search(r"call\s+\*0x[0-9a-f]+\(%rip\)\s+#\s+([0-9a-f]+)", line)
        if m:
            callee = got.get(int(m.group(1), 16))
        m = re.search(r"call\s+([0-9a-f]+) <", line)
        if m:
            callee = int(m.group(1), 16)
        if callee in targets:
            offenders.add(current)

    for name in sorted(exported):
        if name in offenders:
            failed += 1
            print(f"  {name}: a panic could unwind out of it (abort landing pad)")
        else:
            passed += 1
    print(f"unwind: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
