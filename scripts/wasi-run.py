#!/usr/bin/env python3
"""Runs a WebAssembly program built for WASI (wasm32-wasip1) under
wasmtime, the way a shell runs a native one: arguments, environment and
standard streams passed through, the program's exit code returned.

Usage: wasi-run.py PROGRAM.wasm [ARGUMENT...]

A trap (an `abort()` or a Rust panic, which aborts on wasm) is reported on
stderr and exits with 134, as SIGABRT would. Compiled modules are cached by
wasmtime between runs.
"""
import os
import sys

import wasmtime


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    config = wasmtime.Config()
    # Native code's stack for the program: 2 MiB, not wasmtime's default
    # 512 KiB, which is less than abi/walks needs to nest walks 1,000
    # deep (more than a few MiB does not fit this process's own stack).
    config.max_wasm_stack = 2 << 20
    try:
        config.cache = True
    except Exception:  # a wasmtime without a cache: compile every time
        pass
    engine = wasmtime.Engine(config)
    store = wasmtime.Store(engine)
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    wasi = wasmtime.WasiConfig()
    wasi.argv = [path] + sys.argv[2:]
    wasi.env = list(os.environ.items())
    wasi.inherit_stdin()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    wasi.preopen_dir(".", ".")
    store.set_wasi(wasi)
    instance = linker.instantiate(store, wasmtime.Module.from_file(engine, path))
    try:
        instance.exports(store)["_start"](store)
    except wasmtime.ExitTrap as exit_:
        return exit_.code
    except wasmtime.Trap as trap:
        print(f"wasi-run: {path}: {trap}", file=sys.stderr)
        return 134
    return 0


if __name__ == "__main__":
    sys.exit(main())
