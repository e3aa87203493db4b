#!/usr/bin/env python3
"""tools/check-layers.py -- the layer rule of docs/overview.md, checked.

The kernel's source folders are layers, lowest first; each calls only down:

    lib/        printk, string, format, spinlock, cmdline, ksyms, list
    arch/       the CPU and devices, behind pv_ops
    mm/frame/   frames: the page database, buddy, per-CPU caches, kmalloc
    mm/pt/      tables: table pages, entries and their writers, the walker,
                TLB batches and shootdowns, kernel stacks, the mechanics
                of sharing a table
    mm/         address spaces: VMAs, faults, fork, madvise, mprotect,
                mremap, text-sharing policy, lazy free, reclaim (and, to
                come, the page cache's mapping side, the reverse map, swap)
    drivers/    devices: the PCI bus, virtio, the block layer and its
                disks (they allocate frames and wait with lib/wait.h; the
                file systems above them and the page cache in mm reach
                them through a block device's or a file's ops, never by name)
    fs/         the VFS (paths, names, mounts, open files over the page
                cache), tmpfs, device files, ext2 (through the block layer)
    kernel/     processes, descriptors, syscalls, /proc, the test harness

A file may include headers of its own layer and of layers below it, plus the
user ABI headers under libc/include/pagoda/ (shared by kernel and user space,
like Linux's uapi). In-kernel test code (any */tests/ folder) sits above every
layer: it may include the harness.

Calls up through a hook count as breaks too: a function pointer declared in
a header of one layer ("extern T (*name)(...);") and assigned in a file of a
layer above it, or a registration function with "hook" in its name declared
below and called from above. (A callback passed as an argument for the one
call -- the walker's walk_ops, pgt_share's `before` -- is the caller's own
code run at its request, not a break.)

Every upward include or hook must be listed, with its reason, in
tools/layers-allowed.txt ("file -> header: reason", or
"file -> hook NAME: reason" for the file that sets the hook).

Exit 0 when the tree obeys the rule and every listed exception is still used;
1 otherwise, naming each offending line.
"""
import os
import re
import subprocess
import sys

LAYERS = [("lib/", 0), ("arch/", 1), ("mm/frame/", 2), ("mm/pt/", 3), ("mm/", 4),
          ("drivers/", 5), ("fs/", 6), ("kernel/", 7)]
ABI = "libc/include/pagoda/"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
HOOK_DECL = re.compile(r'^\s*extern\b[^;(]*\(\s*\*\s*(\w+)\s*\)\s*\(')
FN_TYPEDEF = re.compile(r'^\s*typedef\b[^;(]*\(\s*\*\s*(\w+)\s*\)\s*\(')
HOOK_FUNC = re.compile(r'^[\w\s\*]*\b(\w*hook\w*)\s*\([^;]*\)\s*;')


def layer_of(path):
    """The layer number of a source path, or None when it is not kernel code."""
    for prefix, n in LAYERS:
        if path.startswith(prefix):
            return n
    return None


def layer_name(path):
    """The folder of path's layer, for messages."""
    for prefix, _ in LAYERS:
        if path.startswith(prefix):
            return prefix
    return "?"


def read_allowed(path):
    """{(file, header): reason} from the exceptions list."""
    allowed = {}
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.match(r"(\S+)\s*->\s*((?:hook\s+)?\S+)\s*:\s*(\S.*)$", line)
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
    yield from hook_violations(files)


def hooks_declared(files):
    """{name: (header, layer)} of the hook pointers and hook-registering
    functions that kernel headers declare."""
    hooks, headers = {}, [f for f in files if f.endswith(".h") and layer_of(f) is not None
                          and "/tests/" not in f]
    fn_types = {m.group(1) for f in headers for line in open(f, errors="replace")
                for m in [FN_TYPEDEF.match(line)] if m}
    typed = re.compile(r'^\s*extern\s+(?:const\s+)?(' + "|".join(fn_types or ["$^"]) +
                       r')\s+(\w+)\s*;')
    for f in headers:
        for line in open(f, errors="replace"):
            m = HOOK_DECL.match(line) or HOOK_FUNC.match(line)
            t = typed.match(line)
            if m:   # a pointer is set (=), a registering function called (()
                hooks[m.group(1)] = (f, layer_of(f), "=" if m.re is HOOK_DECL else "(")
            elif t:
                hooks[t.group(2)] = (f, layer_of(f), "=")
    return hooks


def hook_violations(files):
    """(file, line number, "hook NAME") of every hook set, or registered
    with, from a layer above the one that declares it."""
    hooks = hooks_declared(files)
    if not hooks:
        return
    use = re.compile(r'\b(' + "|".join(map(re.escape, hooks)) + r')\s*(=[^=]|\()')
    for f in files:
        own = layer_of(f)
        if own is None or "/tests/" in f or not f.endswith(".c"):
            continue
        for n, line in enumerate(open(f, errors="replace"), 1):
            for m in use.finditer(line):
                name = m.group(1)
                if hooks[name][1] < own and m.group(2)[0] == hooks[name][2] and not line.lstrip().startswith(("*", "/*")):
                    yield f, n, "hook " + name


def self_test():
    """The checker catches an upward include and accepts a downward one."""
    up = list(violations_in({"arch/a.c": '#include "mm/frame/page.h"\n'}))
    down = list(violations_in({"mm/b.c": '#include "arch/x86_64/pte.h"\n'
                                          '#include "libc/include/pagoda/abi-mman.h"\n'}))
    test = list(violations_in({"mm/tests/t.c": '#include "kernel/ktest.h"\n'}))
    ok = up == [("arch/a.c", 1, "mm/frame/page.h")] and down == [] and test == []
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
        print(f"{f}:{n}: sets {header}, declared below {layer_name(f)}: a call up (fix it, or "
              f"list it in tools/layers-allowed.txt with the reason)"
              if header.startswith("hook ") else
              f"{f}:{n}: includes {header}, a layer above {layer_name(f)} (fix it, or "
              f"list it in tools/layers-allowed.txt with the reason)")
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
