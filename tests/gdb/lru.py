"""tests/gdb/lru.py -- gdb batch test: pg-lru against the kernel's own
replacement lists, while `cat /dev/vda` reads the disk through its page
cache (a disk's cache has a store: its pages go on the page cache's
inactive list as they come in), stopped in the virtio disk's queue() once
the disk has served a few reads.

Checks that:
  * pg-lru lists the seven lists, each with as many pages as its walk and
    the kernel's lru_nr agree on (no warning), the inactive file list not
    empty, nor the inactive tmpfs list (the root's programs, in tmpfs);
  * pg-lru file_cold lists as many pages as lru_nr[LRU_FILE_COLD], every
    one a page-cache page of vda's cache (disks[0]->cache), at indices
    inside the disk, no more of them than the cache holds;
  * pg-lru LIST MAX prints MAX lines and the number left out;
  * a bad call (an unknown list, too many arguments) fails with a one-line
    message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import gdb  # noqa: E402

LISTS = ("cold", "hot", "lazy", "file_cold", "file_hot", "shmem_cold", "shmem_hot")
SUMMARY = re.compile(r"^  (\w+)\s+.*?\s+(\d+) page\(s\)(.*)$", re.M)
PAGE = re.compile(r"^  PFN\s+(0x[0-9a-f]+)\s+(\w+)\s+(\S+)\s+cache (0x[0-9a-f]+) index (\d+)$", re.M)


def stop_after_reads():
    bp = gdb.Breakpoint("queue", type=gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "r->op == BLK_READ && r->dev->reads > 8"
    gdb.execute("continue", to_string=True)
    bp.delete()
    t.check(t.here()[0] == "queue", "stopped in queue() after 8 reads of vda")


def body():
    stop_after_reads()
    out = t.run("pg-lru")
    rows = {m.group(1): (int(m.group(2)), m.group(3)) for m in SUMMARY.finditer(out)}
    t.check(tuple(rows) == LISTS, "pg-lru lists the seven lists in enum order", out)
    for i, name in enumerate(LISTS):
        if name in rows:
            want = t.value("lru_nr[%d]" % i)
            t.check(rows[name] == (want, ""), "%s: %d page(s), as lru_nr says, no warning" % (name, want),
                    str(rows[name]))
    t.check(rows.get("file_cold", (0,))[0] > 0, "the inactive file list has vda's pages", out)
    t.check(rows.get("shmem_cold", (0,))[0] > 0, "the inactive tmpfs list has the root's pages", out)
    cache = t.value("&disks[0]->cache")
    nrpages = t.value("disks[0]->cache.nrpages")
    out = t.run("pg-lru file_cold 100000")
    pages = [(int(g[0], 16), g[1], int(g[3], 16), int(g[4])) for g in PAGE.findall(out)]
    want = t.value("lru_nr[LRU_FILE_COLD]")
    m = re.search(r"^(\d+) page\(s\) on list file_cold", out, re.M)
    t.check(m is not None and int(m.group(1)) == len(pages) == want,
            "pg-lru file_cold lists lru_nr[LRU_FILE_COLD] (%d) pages" % want, out[-500:])
    t.check(all(p[1] == "file" and p[2] == cache and p[3] < 4096 for p in pages),
            "each a page of vda's cache (%#x), index inside the 16 MiB disk" % cache, out[:1500])
    t.check(len(pages) <= nrpages and "warning" not in out,
            "no more than the cache holds (%d), no warning" % nrpages, out[-500:])
    out = t.run("pg-lru file_cold 3")
    t.check(len(PAGE.findall(out)) == 3 and ("... %d more" % (want - 3)) in out,
            "pg-lru file_cold 3: three lines, then the rest counted", out)
    t.run_error("pg-lru nosuch")
    t.run_error("pg-lru cold 1 2")


t.scenario(body)
