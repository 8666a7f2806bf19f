#!/usr/bin/env python3
"""No import cycle between the crate's top-level modules (`src/<name>.rs` or
`src/<name>/`): reads every `crate::<module>` path in code outside comments
and test modules, and prints each cycle. Exit status 1 when there is
one. Run by scripts/limits.sh."""
import os
import re
import sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
uses = {}
for dirpath, _, files in os.walk(root):
    for name in files:
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        if not name.endswith(".rs") or "tests" in rel.split(os.sep)[-1] or "/tests/" in rel:
            continue
        module = rel.split(os.sep)[0].removesuffix(".rs")
        if module in ("lib", "model_tests"):
            continue
        with open(path) as f:
            text = f.read()
        # An inline test module ends its file: cut from it.
        text = re.split(r"#\[cfg\(test\)\]\s*mod \w+ \{", text)[0]
        for line in text.splitlines():
            code = line.split("//")[0]
            for m in re.finditer(r"crate::([a-z_0-9]+)", code):
                if m.group(1) != module:
                    uses.setdefault(module, {}).setdefault(m.group(1), f"{rel}")

# Tarjan's strongly connected components.
index, low, stack, on, cycles = {}, {}, [], set(), []


def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v)
    on.add(v)
    for w in uses.get(v, {}):
        if w not in index:
            visit(w)
            low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        part = []
        while True:
            w = stack.pop()
            on.discard(w)
            part.append(w)
            if w == v:
                break
        if len(part) > 1:
            cycles.append(sorted(part))


for v in list(uses):
    if v not in index:
        visit(v)
for part in cycles:
    edges = [f"{a} -> {b} ({uses[a][b]})" for a in part for b in uses.get(a, {}) if b in part]
    print("limits: an import cycle between " + ", ".join(part) + ": " + "; ".join(edges), file=sys.stderr)
sys.exit(1 if cycles else 0)
