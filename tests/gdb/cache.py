"""tests/gdb/cache.py -- gdb batch test: pg-cache against the kernel's own
page caches, at a page being dirtied in a cache that already holds more
than 64 pages (two levels of its radix tree): initramfs_unpack writing a
large program of the initrd into the tmpfs root.

Checks that:
  * pg-cache lists the cache being written, with the page and dirty counts
    its struct pagecache holds (nrpages, ndirty), and ends with the count
    of caches, as many as all_caches holds;
  * pg-cache ADDR lists as many pages as nrpages, by index, the page just
    dirtied among them (its PFN, state UPTODATE|DIRTY), and as many DIRTY
    as ndirty, with no warning;
  * a bad call (too many arguments, address 0) fails with a one-line message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import gdb  # noqa: E402

LINE = re.compile(r"^  cache (0x[0-9a-f]+)\s+(.*?)\s+pages\s+(\d+)\s+dirty\s+(\d+)$", re.M)
PAGE = re.compile(r"^  index\s+(\d+)\s+offset\s+(0x[0-9a-f]+)\s+PFN\s+(0x[0-9a-f]+)\s+(\S+)$", re.M)


def count_caches():
    """all_caches' length, walked with gdb expressions alone."""
    head = t.value("&all_caches")
    n, node = 0, t.value("all_caches.next")
    while node != head and n < 100000:
        n, node = n + 1, t.value("((struct list *)%d)->next" % node)
    return n


def stop_in_big_cache():
    bp = gdb.Breakpoint("pagecache_set_dirty", type=gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "pc->nrpages > 80"
    gdb.execute("continue", to_string=True)
    bp.delete()
    t.check(t.here()[0] == "pagecache_set_dirty", "stopped in pagecache_set_dirty, a cache of > 80 pages")


def body():
    stop_in_big_cache()
    pc = t.value("pc")
    pfn = t.value("((unsigned long)pg - (unsigned long)frames) / sizeof(struct page)")
    t.run("finish")
    nrpages = t.value("((struct pagecache *)%d)->nrpages" % pc)
    ndirty = t.value("((struct pagecache *)%d)->ndirty" % pc)
    out = t.run("pg-cache")
    rows = {int(m.group(1), 16): (m.group(2), int(m.group(3)), int(m.group(4))) for m in LINE.finditer(out)}
    t.check(pc in rows, "pg-cache lists the cache being written (%#x)" % pc, out[-2000:])
    if pc in rows:
        t.check(rows[pc][1:] == (nrpages, ndirty), "its pages and dirty pages are nrpages %d, ndirty %d"
                % (nrpages, ndirty), str(rows[pc]))
        t.check("PC_KIND_SHMEM inode" in rows[pc][0], "its owner is a tmpfs inode", rows[pc][0])
    m = re.search(r"^(\d+) page cache\(s\)$", out, re.M)
    t.check(m is not None and int(m.group(1)) == len(rows) == count_caches(),
            "the count line says as many caches as all_caches holds", out[-300:])
    out = t.run("pg-cache %#x 100000" % pc)
    pages = [(int(g[0]), int(g[1], 16), int(g[2], 16), g[3]) for g in PAGE.findall(out)]
    t.check(len(pages) == nrpages, "pg-cache ADDR lists nrpages (%d) pages" % nrpages, out[-2000:])
    t.check([p[0] for p in pages] == sorted(p[0] for p in pages) and all(p[1] == p[0] * 4096 for p in pages),
            "by index, offset = index * 4096", out[-2000:])
    mine = [p for p in pages if p[2] == pfn]
    t.check(len(mine) == 1 and mine[0][3] == "UPTODATE|DIRTY",
            "the page just dirtied (PFN %#x) is there, UPTODATE|DIRTY" % pfn, out[-2000:])
    t.check(sum(any(f.startswith("DIRTY") for f in p[3].split("|")) for p in pages) == ndirty
            and "warning" not in out,
            "as many DIRTY pages as ndirty (%d), no warning" % ndirty, out[-2000:])
    t.run_error("pg-cache 1 2 3")
    t.run_error("pg-cache 0")


t.scenario(body)
