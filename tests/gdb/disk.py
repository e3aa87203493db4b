"""tests/gdb/disk.py -- gdb batch test: pg-disk against the block layer's
own disks and the virtio disk's requests, stopped at the moment a request
has just been queued (virtio_notify, called by the driver's queue() right
after vq_add), while `cat /dev/vda` reads the disk through read-ahead.

Checks that:
  * pg-disk lists vda with its size (the 16 MiB the runner made), the
    counters its struct blkdev holds, and "1 disk(s)";
  * the request being queued (queue()'s r, one frame up) is among the
    requests pg-disk shows in flight, with its operation, sector, length
    and segments; a read-ahead request is larger than a page;
  * a bad call (an unknown disk, too many arguments) fails with a
    one-line message.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import gdb  # noqa: E402

REQ = re.compile(r"^    slot\s+(\d+)\s+(\w+)\s+sector\s+(\d+)\s+(\d+) bytes\s+(\d+) segment\(s\)\s+"
                 r"request (0x[0-9a-f]+)$", re.M)


def stop_at_big_read():
    """At virtio_notify for a read of more than one page."""
    bp = gdb.Breakpoint("queue", type=gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "r->op == BLK_READ && r->len > 4096 && r->dev->reads > 2"
    gdb.execute("continue", to_string=True)
    bp.delete()
    t.check(t.here()[0] == "queue", "stopped in the virtio disk's queue(), a read of more than a page")
    t.run("finish")   # now it sits in its slot


def body():
    stop_at_big_read()
    out = t.run("pg-disk")
    t.check(re.search(r"^vda: 32768 sectors \(16 MiB\), write cache, \d+ segments a request$", out, re.M)
            is not None, "pg-disk shows vda, 16 MiB, with a write cache", out[-1500:])
    reads = t.value("disks[0]->reads")
    t.check(("reads %d," % reads) in out, "its completed reads are disks[0]->reads (%d)" % reads, out[-1500:])
    t.check(re.search(r"^1 disk\(s\)$", out, re.M) is not None, "and it counts 1 disk", out[-300:])
    reqs = [(int(g[0]), g[1], int(g[2]), int(g[3]), int(g[4]), int(g[5], 16)) for g in REQ.findall(out)]
    t.check(len(reqs) >= 1, "at least the request just queued is in flight", out[-1500:])
    found = False
    for slot, op, sector, n, nseg, addr in reqs:
        if op != "read":
            continue
        want = (t.value("((struct blk_request *)%d)->sector" % addr),
                t.value("((struct blk_request *)%d)->len" % addr),
                t.value("((struct blk_request *)%d)->nseg" % addr))
        found = found or (n > 4096)
        t.check((sector, n, nseg) == want, "request %#x: sector, bytes, segments as in memory" % addr,
                str((sector, n, nseg, want)))
    t.check(found, "one of them is a read-ahead of more than a page", out[-1500:])
    out = t.run("pg-disk vda")
    t.check(out.startswith("vda: ") and "disk(s)" not in out, "pg-disk vda shows vda alone", out[:300])
    t.run_error("pg-disk vdz")
    t.run_error("pg-disk vda vdb")


t.scenario(body)
