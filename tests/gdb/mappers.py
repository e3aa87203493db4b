"""tests/gdb/mappers.py -- gdb batch test: pg-mappers (the reverse map) at
the truncation of usertests files_truncate_mapped: a file the parent maps
shared and private, and two children forked after it (their own VMAs, page
tables shared with the parent), stopped in vmobject_unmap.

Checks that:
  * pg-mappers OBJ lists as many VMAs as the object's mappings list holds
    (walked here with gdb expressions alone), each with a process, and ends
    with that count, with no warning;
  * at least three address spaces map it (the parent's and two children's),
    and every VMA has both a shared and a private sibling pattern: shared
    and private mappings both appear;
  * pg-mappers OBJ 0 says where each VMA maps page 0 and that the parent's
    shared mapping has it mapped (a physical address): the truncation keeps
    page 0;
  * bad calls (no argument, three, address 0) fail with a one-line message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402

LINE = re.compile(r"^  as (0x[0-9a-f]+) \[(.*?)\]\s+(0x[0-9a-f]+)-(0x[0-9a-f]+) (\S+) (\S+) @(0x[0-9a-f]+)$",
                  re.M)
PAGE0 = re.compile(r"^    page 0 at (0x[0-9a-f]+): (PA 0x[0-9a-f]+|not mapped)$", re.M)


def list_length(obj):
    """obj->mappings' length, walked with gdb expressions alone."""
    head = t.value("&((struct vmobject *)%d)->mappings" % obj)
    n, node = 0, t.value("((struct vmobject *)%d)->mappings.next" % obj)
    while node != head and n < 100000:
        n, node = n + 1, t.value("((struct list *)%d)->next" % node)
    return n


def body():
    t.stop_in("vmobject_unmap")
    obj = t.value("obj")
    n = list_length(obj)
    out = t.run("pg-mappers %#x" % obj)
    rows = LINE.findall(out)
    t.check(len(rows) == n and n > 0, "one line per VMA on the list (%d)" % n, out[-2000:])
    t.check(re.search(r"^%d mapping\(s\)$" % n, out, re.M) is not None and "warning" not in out,
            "ends with the count, no warning", out[-300:])
    t.check(all(r[1] and r[1] != "no process" for r in rows), "each VMA's address space has a process",
            out[-2000:])
    spaces = {r[0] for r in rows}
    t.check(len(spaces) >= 3, "three address spaces or more map it (%d)" % len(spaces), out[-2000:])
    kinds = [r[5] for r in rows]
    t.check(any("shared" in k for k in kinds) and any("shared" not in k for k in kinds),
            "shared and private mappings both listed", str(kinds))
    out = t.run("pg-mappers %#x 0" % obj)
    print(out)   # the listing, for the log (docs/file-mappings.md shows one)
    pages = PAGE0.findall(out)
    t.check(len(pages) == n, "page 0 placed in every VMA", out[-2000:])
    t.check(any(p[1].startswith("PA") for p in pages), "page 0 is mapped somewhere", out[-2000:])
    t.run_error("pg-mappers")
    t.run_error("pg-mappers 1 2 3")
    t.run_error("pg-mappers 0")


t.scenario(body)
