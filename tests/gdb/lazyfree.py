"""tests/gdb/lazyfree.py -- gdb batch test: pg-lazyfree against the kernel's
own lazy-free list and counters, through one MADV_FREE call (usertests
madv_free_rewrite: 64 pages filled, MADV_FREE'd, every other page written
again, then munmap'ed; tests/scripts.txt).

Checks that:
  * after lazyfree_range returns, pg-lazyfree lists one line per page of
    the advised range (at the young end of the lazy list), in address
    order, owned by the process that called madvise (found through each
    page's anon_vma); its count equals the kernel's lru_nr[LRU_LAZY], and
    lazyfree_stats.marked grew by the range's pages; each line's PFN and
    leaf entry are what the page tables say (pagoda.paging), D clear:
    "clean";
  * pg-lazyfree MAX prints MAX lines and the number left out;
  * once the program has written the even pages again, exactly those are
    "dirty" (D set in their entries) and the odd ones still "clean";
  * after munmap the pages are gone: the count is back where it was.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import layout, paging, proc, pte  # noqa: E402

PAGE = 4096
RECORD = re.compile(r"^  (pid \d+ \(\S+\))\s+VA (0x[0-9a-f]+)\s+PFN\s+(0x[0-9a-f]+)\s+pte (\S+)\s+(\w+)")
MAX_QUERIES = 4       # pagoda_vmquery calls before the test's rewrite shows


def listing(cmd="pg-lazyfree 100000"):
    """(records [(owner, va, pfn, pte, state)], count line's number, text)."""
    out = t.run(cmd)
    recs = [(m.group(1), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16), m.group(5))
            for m in map(RECORD.match, out.splitlines()) if m]
    m = re.search(r"^(\d+) page\(s\) on the lazy-free list$", out, re.M)
    t.check(m is not None, "'%s' ends with the count" % cmd, out[-300:])
    return recs, int(m.group(1)) if m else -1, out


def stats(field):
    if field == "pages":
        return t.value("lru_nr[LRU_LAZY]")
    return t.value("lazyfree_stats.%s" % field)


def in_range(recs, start, end):
    return [r for r in recs if start <= r[1] < end]


def after_madvise():
    """Stop in lazyfree_range, let it return; (range start, end, records
    before, the caller's pid)."""
    t.stop_in("lazyfree_range")
    start, end = t.value("start"), t.value("end")
    me = proc.current_process()
    owner = "pid %d (%s)" % (int(me["pid"]), me["name"].string())
    recs, n, out = listing()
    before, marked = stats("pages"), stats("marked")
    t.check(n == len(recs) == before, "before MADV_FREE: pg-lazyfree lists %d page(s), "
            "lru_nr[LRU_LAZY] says %d" % (n, before), out)
    pages = (end - start) // PAGE
    present = [va for va in range(start, end, PAGE)
               if paging.translate(layout.read_cr3(), va) is not None]
    t.check(pages > 0 and len(present) == pages,
            "the advised range [%#x, %#x) is %d present pages" % (start, end, pages))
    t.run("finish")
    recs, n, out = listing()
    t.check(n == len(recs) == stats("pages") == before + pages,
            "after MADV_FREE: %d pages listed, count line %d, lru_nr[LRU_LAZY] %d "
            "(%d before + %d)" % (len(recs), n, stats("pages"), before, pages), out)
    t.check(stats("marked") == marked + pages, "lazyfree_stats.marked grew by %d" % pages)
    t.check("warning" not in out, "no disagreement with lru_nr[LRU_LAZY] reported", out)
    mine = in_range(recs, start, end)
    t.check([r[1] for r in mine] == list(range(start, end, PAGE)),
            "one line per page of the range, in address order", out)
    t.check(all(r[0] == owner for r in mine), "every page belongs to %s" % owner, out)
    wrong = []
    cr3 = layout.read_cr3()
    for _, va, pfn, e, state in mine:
        leaf = paging.walk(cr3, va)[-1].entry
        if (pfn << 12 != pte.frame_addr(leaf, pte.PT) or e != leaf
                or e & pte.D or state != "clean"):
            wrong.append("%#x: pfn %#x pte %#x %s, page tables: %#x" % (va, pfn, e, state, leaf))
    t.check(mine and not wrong, "each line's PFN and entry match the page tables: "
            "D clear, 'clean'", "\n".join(wrong[:5]))
    recs5, n5, out5 = listing("pg-lazyfree 5")
    t.check(len(recs5) == 5 and n5 == n and "  ... %d more" % (n - 5) in out5,
            "pg-lazyfree 5: five lines and '... %d more'" % (n - 5), out5)
    return start, end, before, owner


def after_rewrite(start, end):
    """Run to the program's query after it wrote the even pages again."""
    bp = t.gdb.Breakpoint("sys_vmquery", type=t.gdb.BP_HARDWARE_BREAKPOINT)
    try:
        for _ in range(MAX_QUERIES):
            t.gdb.execute("continue", to_string=True)
            mine = in_range(listing()[0], start, end)
            if any(r[4] == "dirty" for r in mine):
                break
    finally:
        bp.delete()
    recs, n, out = listing()
    mine = in_range(recs, start, end)
    t.check(n == stats("pages") and len(mine) == (end - start) // PAGE,
            "after the rewrite: still %d pages in the range, count = lru_nr[LRU_LAZY]"
            % len(mine), out)
    dirty = [(r[1] - start) // PAGE for r in mine if r[4] == "dirty"]
    t.check(dirty == list(range(0, (end - start) // PAGE, 2)),
            "exactly the rewritten (even) pages are 'dirty'", out)
    t.check(all(bool(r[3] & pte.D) == (r[4] == "dirty") for r in mine),
            "'dirty' is the D bit of the entry", out)


def after_munmap(start, end, before, owner):
    t.stop_in("as_munmap")
    t.check((t.value("addr"), t.value("len")) == (start, end - start),
            "the next munmap is the advised range's")
    t.run("finish")
    recs, n, out = listing()
    t.check(n == len(recs) == stats("pages") == before,
            "after munmap: back to %d page(s), as lru_nr[LRU_LAZY] says" % before, out)
    t.check(not any(r[0] == owner for r in recs), "none of %s's pages is left" % owner, out)


def body():
    start, end, before, owner = after_madvise()
    after_rewrite(start, end)
    after_munmap(start, end, before, owner)


t.scenario(body)
