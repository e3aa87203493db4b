#!/usr/bin/env python3
"""sysfuzz host mode keeps every mapping call inside its scratch area.

On the Linux host, sysfuzz -H may only map, unmap, protect or advise inside
its 128 KiB scratch area and the hole after it, or at an address no user
mapping can have, which the kernel refuses. An mmap without MAP_FIXED is
the exception to the exception: its address is a hint, and Linux ignores a
bad hint and maps the whole length elsewhere (seed 299096028 made a 4 GiB
MAP_SHARED|MAP_POPULATE mapping that way, which took more than the hang
guard's 10 s on a loaded host).

mremap may move a mapping only to a fixed address inside the scratch area
(MREMAP_FIXED), never wherever the kernel likes (MREMAP_MAYMOVE alone).

Runs the host build with -v over that seed and a few more (one of them
with 4 threads in each of 3 processes), parses each traced call and checks
its range. Usage: sysfuzz_host_ranges.py SYSFUZZ (an absolute path)
"""
import re
import subprocess
import sys
import tempfile

SCRATCH = 0x300000000000          # SCRATCH_BASE in user/sysfuzz.c
SCRATCH_END = SCRATCH + 2 * 16 * 4096
KERNEL = 0x0000800000000000
MAP_FIXED, MAP_FIXED_NOREPLACE = 0x10, 0x100000
MREMAP_MAYMOVE, MREMAP_FIXED = 1, 2
MEM_CALLS = {"mmap", "munmap", "mprotect", "madvise", "mremap"}
RUNS = [("299096028", "1417", []), ("1", "3000", []), ("7", "3000", []),
        ("3", "3000", ["-t", "4", "-P", "3"])]
LINE = re.compile(r"^\[(\d+)\] syscall \d+ \((\w+)\)\(([^)]*)\)")


def problem(name, args):
    """Why a traced call with these arguments is not safe, or None."""
    addr, length = args[0], args[1]
    hint = name == "mmap" and not args[3] & (MAP_FIXED | MAP_FIXED_NOREPLACE)
    if name == "mremap":
        flags, new = args[3], args[4]
        if flags & MREMAP_MAYMOVE and not flags & MREMAP_FIXED:
            return "MREMAP_MAYMOVE without MREMAP_FIXED: it may land anywhere"
        if flags & MREMAP_FIXED and not (SCRATCH <= new < SCRATCH_END):
            return f"moves to {new:#x}, outside the scratch area"
    if addr >= KERNEL and not hint:
        return None
    if SCRATCH <= addr < SCRATCH_END and length <= SCRATCH_END - addr:
        return None
    return f"range {addr:#x}+{length:#x} outside the scratch area"


def check(sysfuzz, seed, steps, extra):
    with tempfile.TemporaryDirectory() as scratch_dir:
        out = subprocess.run([sysfuzz, "-H", "-v", "-s", seed, "-n", steps] + extra,
                             capture_output=True, text=True, timeout=300,
                             cwd=scratch_dir).stdout
    seen = bad = 0
    for line in out.splitlines():
        m = LINE.match(line)
        if not m or m.group(2) not in MEM_CALLS:
            continue
        seen += 1
        args = [int(x, 16) for x in m.group(3).split(", ")]
        why = problem(m.group(2), args)
        if why:
            bad += 1
            print(f"seed {seed} step {m.group(1)}: {m.group(2)}: {why}")
    if seen == 0:
        print(f"seed {seed}: no mapping call traced (is -v broken?)")
        return False
    print(f"seed {seed} steps {steps}: {seen} mapping calls, {bad} unsafe")
    return bad == 0


def main():
    ok = all([check(sys.argv[1], s, n, x) for s, n, x in RUNS])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
