"""pagoda.disk -- pg-disk: the disks, their counters and the requests in flight.

Every disk is in disks[] (drivers/block/blkdev.c): its size and modes, the
requests it completed (reads, writes, flushes, errors), the sectors they
moved, the pieces plugs merged, its own page cache. A virtio disk
(drivers/virtio/virtio_blk.c) holds each request it has queued in a slot
(header and status byte the device reads and writes) until the completion
interrupt hands it back (blk_complete): those are the requests in flight.
"""
import gdb

from . import headers
from . import names as N
from .core import Command, PagodaError, lookup_type, out, symbol_value

SECTOR = 512
VQ_SIZE = headers.require("drivers/virtio/virtqueue.h", "VQ_MAX_SIZE")


def disks():
    """Every registered struct blkdev, in order (vda, vdb, ...)."""
    arr, n = symbol_value(N.DISKS, N.PROVIDER_BLK), int(symbol_value(N.NDISKS, N.PROVIDER_BLK))
    return [arr[i].dereference() for i in range(n)]


def in_flight(disk):
    """(slot, struct blk_request) of every request queued on disk's device."""
    vblks, n = symbol_value(N.VBLKS, N.PROVIDER_BLK), int(symbol_value(N.NVBLK, N.PROVIDER_BLK))
    for i in range(n):
        vb = vblks[i].dereference()
        if int(vb["disk"].address) != int(disk.address):
            continue
        for s in range(VQ_SIZE):
            req = vb["slots"][s]["req"]
            if int(req) != 0:
                yield s, req.dereference()


def op_name(op):
    return str(op).replace("BLK_", "").lower()


def disk_line(d):
    name = d["name"].string()
    modes = [m for m, on in (("read-only", d["readonly"]), ("write cache", d["write_cache"])) if int(on)]
    return "%s: %d sectors (%d MiB)%s, %d segments a request" % (
        name, int(d["sectors"]), int(d["sectors"]) >> 11, "".join(", " + m for m in modes),
        int(d["max_segs"]))


class PgDisk(Command):
    """Show the disks and the requests in flight.

Usage: pg-disk          every disk: size, modes, segments a request; its
                        completed requests (reads, writes, flushes, errors),
                        the sectors they moved and the pieces plugs merged
                        (what /proc/diskstats shows); its own page cache
                        (pages, dirty); then each request its device holds
                        now: slot, operation, first sector, bytes, segments
       pg-disk NAME     only that disk (vda, vdb, ...)"""

    NAME = "pg-disk"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        shown = 0
        for d in disks():
            if args and d["name"].string() != args[0]:
                continue
            self.show(d)
            shown += 1
        if args and not shown:
            raise PagodaError("pg-disk: no disk called %s" % args[0])
        if not args:
            out("%d disk(s)" % shown)

    @staticmethod
    def show(d):
        out(disk_line(d))
        out("  done: reads %d, writes %d, flushes %d, errors %d; sectors read %d, written %d; "
            "merged %d reads, %d writes" % (
                int(d["reads"]), int(d["writes"]), int(d["flushes"]), int(d["errors"]),
                int(d["sectors_moved"][0]), int(d["sectors_moved"][1]),
                int(d["merged"][0]), int(d["merged"][1])))
        out("  cache %#x: %d pages, %d dirty" % (int(d["cache"].address), int(d["cache"]["nrpages"]),
                                                int(d["cache"]["ndirty"])))
        reqs = list(in_flight(d))
        out("  in flight: %d request(s)" % len(reqs))
        for slot, r in reqs:
            out("    slot %3d  %-5s  sector %10d  %8d bytes  %2d segment(s)  request %#x" % (
                slot, op_name(r["op"]), int(r["sector"]), int(r["len"]), int(r["nseg"]),
                int(r.address)))


PgDisk()
