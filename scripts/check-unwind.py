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

The walks (SPEC §3c) must also be plain frames: a callback may leave by
`longjmp` or end its thread, and a forced unwind passes a Rust frame only
if that frame has no landing pad at all (no LSDA: the personality routine
would stop the unwind at a call site its table does not list). So every
function that can be on the stack between a walk export and its callback
-- the export and every library function it reaches by direct calls,
except through `guarded` (the `catch_unwind` that runs before or after a
callback, never around it) -- must have an FDE whose CIE carries no LSDA
('L' in its augmentation), or a null LSDA pointer.

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

    failed += plain_walks(lib, names, got, exported)
    for name in sorted(exported):
        if name in offenders:
            failed += 1
            print(f"  {name}: a panic could unwind out of it (abort landing pad)")
        else:
            passed += 1
    print(f"unwind: {passed} passed, {failed} failed")
    return 1 if failed else 0


WALKS = [
    "slate_each", "slate_delete_if", "slotmap_each", "slotmap_erase_if",
    "slotmap_sort", "slotmap_sparse_each", "slotmap_sparse_erase_if",
    "slotmap_sparse_sort", "slotmap_join",
    "slate_save", "slotmap_save", "slotmap_sparse_save",
]


def lsda_ranges(lib):
    """The [start, end) pc ranges of the FDEs that have an LSDA."""
    cies, ranges = {}, []
    fde = None
    for line in run("readelf", "--debug-dump=frames", lib).splitlines():
        m = re.match(r"([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE", line)
        if m:
            cie, fde = int(m.group(1), 16), None
            continue
        m = re.match(r"\s+Augmentation:\s+\"(\w*)\"", line)
        if m and fde is None:
            cies[cie] = m.group(1)
            continue
        m = re.match(r"[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\.\.([0-9a-f]+)", line)
        if m:
            fde = (int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16))
            if "L" in cies.get(fde[0], ""):
                ranges.append(fde[1:])  # an LSDA unless its pointer is 0
            continue
        m = re.match(r"\s+Augmentation data:\s+([0-9a-f ]+)$", line)
        if m and fde is not None and ranges and ranges[-1] == fde[1:]:
            if all(b == "00" for b in m.group(1).split()):
                ranges.pop()
    return ranges


def plain_walks(lib, names, got, exported):
    """Checks that no frame between a walk export and its callback has a
    landing pad; returns the number of failures."""
    calls, current = {}, None
    by_name = {n: a for a, n in names.items()}
    for line in run("objdump", "-d", "--no-show-raw-insn", lib).splitlines():
        m = re.match(r"([0-9a-f]+) <(.+)>:$", line)
        if m:
            current = int(m.group(1), 16)
            calls[current] = set()
            continue
        if current is None or "call" not in line:
            continue
        m = re.search(r"call\s+\*0x[0-9a-f]+\(%rip\)\s+#\s+([0-9a-f]+)", line)
        callee = got.get(int(m.group(1), 16)) if m else None
        m = re.search(r"call\s+([0-9a-f]+) <", line)
        if m:
            callee = int(m.group(1), 16)
        if callee is not None:
            calls[current].add(callee)
    pads = lsda_ranges(lib)
    failed = 0
    for walk in WALKS:
        if walk not in exported or walk not in by_name:
            print(f"  {walk}: not found")
            failed += 1
            continue
        seen, todo = set(), [by_name[walk]]
        while todo:
            f = todo.pop()
            if f in seen or f not in names:
                continue
            seen.add(f)
            if "guarded" in names[f]:
                continue
            if any(lo <= f < hi for lo, hi in pads):
                print(f"  {walk}: {names[f]} has a landing pad on the way to the callback")
                failed += 1
            todo.extend(calls.get(f, ()))
    print(f"plain walks: {len(WALKS)} walks, {failed} failed")
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
