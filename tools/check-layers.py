#!/usr/bin/env python3
"""tools/check-layers.py -- the layer rule of docs/overview.md, checked.

The kernel's source folders are layers, lowest first:

    lib/   printk, string, format, spinlock, cmdline, ksyms, list  (usable by all)
    arch/  the CPU and devices, behind pv_ops
    mm/    frames, page tables, address spaces
    kernel/  processes, files, syscalls, the test harness

A file may include headers of its own layer and of layers below it, plus the
user ABI headers under libc/include/pagoda/ (shared by kernel and user space,
like Linux's uapi). In-kernel test code (any */tests/ folder) sits above every
layer: it may include the harness. Every other upward include must be listed,
with its reason, in tools/layers-allowed.txt ("file -> header: reason").

Exit 0 when the tree obeys the rule and every listed exception is still used;
1 otherwise, naming each offending line.
"""
import os
import re
import subprocess
import sys

LAYERS = {"lib": 0, "arch": 1, "mm": 2, "kernel": 3}
ABI = "libc/include/pagoda/"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    """The layer number of a source path, or None when it is not kernel code."""
    top = path.split("/", 1)[0]
    return LAYERS.get(top)


def read_allowed(path):
    """{(file, header): reason} from the exceptions list."""
    allowed = {}
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(\S+)\s*->\s*(\S+)\s*:\s*(\S.*)$", line)
        if not m:
            sys.exit(f"{path}:{n}: expected 'file -> header: reason'")
        allowed[(m.group(1), m.group(2))] = m.group(3)
    return allowed


def violations(files):
    """(file, line number, header) of every include that goes up a layer."""
    for f in files:
        own = layer_of(f)
        if own is None or "/tests/" in f:
            continue
        for n, line in enumerate(open(f, errors="replace"), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1).startswith(ABI):
                continue
            target = layer_of(m.group(1))
            if target is not None and target > own:
                yield f, n, m.group(1)


def self_test():
    """The checker catches an upward include and accepts a downward one."""
    up = list(violations_in({"arch/a.c": '#include "mm/page.h"\n'}))
    down = list(violations_in({"mm/b.c": '#include "arch/x86_64/pte.h"\n'
                                          '#include "libc/include/pagoda/abi-mman.h"\n'}))
    test = list(violations_in({"mm/tests/t.c": '#include "kernel/ktest.h"\n'}))
    ok = up == [("arch/a.c", 1, "mm/page.h")] and down == [] and test == []
    print("check-layers self-test:", "ok" if ok else f"FAILED {up} {down} {test}")
    return ok


def violations_in(texts):
    """violations() over {path: text} written to a scratch directory."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        here = os.getcwd()
        os.chdir(d)
        try:
            for path, text in texts.items():
                os.makedirs(os.path.dirname(path), exist_ok=True)
                open(path, "w").write(text)
            return list(violations(list(texts)))
        finally:
            os.chdir(here)


def main():
    if not self_test():
        return 1
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    files = subprocess.run(["git", "ls-files", "*.c", "*.h"], capture_output=True,
                           text=True, check=True).stdout.split()
    files = [f for f in files if os.path.exists(f)]
    allowed = read_allowed("tools/layers-allowed.txt")
    used, bad = set(), 0
    for f, n, header in violations(files):
        if (f, header) in allowed:
            used.add((f, header))
            continue
        print(f"{f}:{n}: includes {header}, a layer above "
              f"{f.split('/')[0]}/ (fix it, or list it in tools/layers-allowed.txt "
              f"with the reason)")
        bad += 1
    for f, header in sorted(set(allowed) - used):
        print(f"tools/layers-allowed.txt: '{f} -> {header}' is no longer needed: remove it")
        bad += 1
    total = len(allowed)
    print(f"check-layers: {len(files)} files, {total} listed exceptions, "
          f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
