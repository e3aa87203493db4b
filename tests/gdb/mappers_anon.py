"""tests/gdb/mappers_anon.py -- gdb batch test: pg-mappers -p, the reverse map
of an anonymous page, at the moment reclaim chose it (swap_slot_alloc: it is
still mapped everywhere), in the pictures scenario's swap step
(user/ptpictures.c, swap=/dev/vda: a swap disk): a subject forks -- its
child shares its PT pages and waits in read() -- and pages its 32 written
pages out with MADV_PAGEOUT. The first page swap_slot_alloc is called for
is one of those (swap is off before that step).

Checks that:
  * pg-mappers -p PA of that page lists the two VMAs of its anon_vma (the
    subject's and its child's), each with a process, and for each the entry
    it reaches: the same entry of the same PT page, shared by 2, which
    maps the page;
  * its closing line says 2 mappings reach 1 distinct entry (one entry
    serves both: the page goes out once for both);
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


def body():
    t.stop_in("swap_slot_alloc")
    pa = t.value("((struct page *)pg - frames) * 4096")
    out = t.run("pg-mappers -p %#x" % pa)
    print(out)   # the listing, for the log (docs/swap-and-replacement.md shows one)
    vmas, ats, total = VMA.findall(out), AT.findall(out), TOTAL.search(out)
    t.check(len(vmas) == 2 and len({v[0] for v in vmas}) == 2 and
            all(v[1] and v[1] != "no process" for v in vmas),
            "two VMAs in two address spaces, each with a process", out[-2000:])
    t.check(len(ats) == 2 and len({(a[2], a[1]) for a in ats}) == 1 and
            all(a[3] == "2" and a[4] == "maps it" for a in ats),
            "both reach one entry of one PT page shared by 2, which maps the page", out[-2000:])
    t.check(total is not None and total.groups() == ("2", "1"), "2 mappings reach 1 distinct entry",
            out[-300:])
    t.run_error("pg-mappers -p")
    t.run_error("pg-mappers -p 0x1000")


t.scenario(body)
