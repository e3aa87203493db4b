"""tests/gdb/mappers_anon.py -- gdb batch test: pg-mappers -p, the reverse map
of an anonymous page, at the moment reclaim chose it (swap_slot_alloc: it is
still mapped everywhere), in `swaptests fork` over a swap disk: a parent
stamps 1.25 x RAM and forks; the child reads it all (page tables shared
with the parent) while reclaim pages it out.

Checks that:
  * pg-mappers -p PA of the chosen page lists the VMAs of its anon_vma, each
    with a process, and for each the entry it reaches (the PT page and its
    sharers) and what that entry holds; the page is mapped somewhere;
  * its closing count of VMAs and distinct entries matches the lines;
  * within the first stops after the fork (at pages 2+ VMAs may map),
    some page is reached from two address spaces through a shared PT
    page: fewer distinct entries than address spaces that map it (one
    entry serves both, which reclaim writes once);
  * pg-mappers -p of a kernel frame, and -p without an address, fail with a
    one-line message.
"""
import os
import re
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402

VMA = re.compile(r"^  as (0x[0-9a-f]+) \[(.*?)\]\s+(0x[0-9a-f]+)-(0x[0-9a-f]+) ", re.M)
AT = re.compile(r"^    at (0x[0-9a-f]+): entry (\d+) of PT page (0x[0-9a-f]+) \((\d+) sharer\(s\)\): (.*)$",
                re.M)
TOTAL = re.compile(r"^(\d+) mapping\(s\) reach (\d+) distinct entr(?:y|ies)$", re.M)
STOPS = 100


def look(out):
    """(VMA rows, entry rows, total) of one pg-mappers -p listing."""
    total = TOTAL.search(out)
    return VMA.findall(out), AT.findall(out), (int(total.group(1)), int(total.group(2))) if total else None


def shared_case(vmas, ats):
    """Is the page mapped from 2+ address spaces through fewer entries?"""
    mapping = [(v[0], a[2], a[1]) for v, a in zip(vmas, ats) if a[4] == "maps it"]
    spaces = {m[0] for m in mapping}
    return len(spaces) >= 2 and len({m[1:] for m in mapping}) < len(spaces)


def body():
    t.stop_in("proc_fork_req")
    gdb.execute("finish", to_string=True)
    bp = gdb.Breakpoint("swap_slot_alloc", type=gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "pg->anon.av->vmas.next->next != &pg->anon.av->vmas"   # 2+ VMAs may map it
    first, found = None, None
    for _ in range(STOPS):
        gdb.execute("continue", to_string=True)
        pa = t.value("((struct page *)pg - frames) * 4096")
        out = gdb.execute("pg-mappers -p %#x" % pa, to_string=True)
        vmas, ats, total = look(out)
        first = first or out
        if shared_case(vmas, ats):
            found = out
            break
    bp.delete()
    vmas, ats, total = look(first)
    t.check(len(vmas) > 0 and all(v[1] and v[1] != "no process" for v in vmas),
            "the first page's VMAs each have a process", first[-2000:])
    t.check(total is not None and total[0] == len(vmas), "the count of VMAs closes the list", first[-500:])
    t.check(any(a[4] == "maps it" for a in ats), "the page is mapped somewhere", first[-2000:])
    t.check(total is not None and total[1] == len({(a[2], a[1]) for a in ats}),
            "distinct entries counted right", first[-2000:])
    print(found or first)   # the listing, for the log (docs/swap-and-replacement.md shows one)
    t.check(found is not None, "within %d pages reclaim chose, one mapped by 2+ spaces through a "
            "shared PT page" % STOPS)
    t.run_error("pg-mappers -p")
    t.run_error("pg-mappers -p 0x1000")


t.scenario(body)
