"""pagoda.cache -- pg-cache: the page caches and the pages in each.

Every cache is on all_caches (mm/pagecache.c): a disk's own (Buffers), each
file's (an inode owns it), each tmpfs file's. A cache's pages hang in a
radix tree of 64-slot nodes, `height` levels deep; a page's state is in its
struct page (cache.flags: UPTODATE, DIRTY, LOCKED being read, WRITEBACK
being written; cache.dirty: which sectors of a page dirty in part).
"""
import gdb

from . import frames
from . import headers
from . import names as N
from .core import Command, PagodaError, list_entries, lookup_type, out, symbol_value

HEADER = "mm/pagecache.h"
FLAGS = [(headers.require(HEADER, "PGC_" + f), f) for f in ("UPTODATE", "DIRTY", "LOCKED", "WRITEBACK")]
SLOTS = 64


def caches():
    """Every struct pagecache, in list order."""
    return list_entries(symbol_value(N.PAGECACHES, N.PROVIDER_PAGECACHE), N.PAGECACHE, "link")


def pages(pc):
    """(index, struct page *) of every page of cache pc, by index."""
    node_t = lookup_type(N.PC_NODE, N.PROVIDER_PAGECACHE).pointer()

    def walk(node, level, base):
        if int(node) == 0:
            return
        n = node.cast(node_t).dereference()
        for i in range(SLOTS):
            child = n["slot"][i]
            if int(child) == 0:
                continue
            index = base * SLOTS + i
            if level == 1:
                yield index, child.cast(lookup_type(N.PAGE_STRUCT, N.PROVIDER_MM).pointer())
            else:
                yield from walk(child, level - 1, index)
    yield from walk(pc["root"], int(pc["height"]), 0)


def flag_names(pg):
    """The page's state; a page dirty in part (a disk's metadata) says which
    512-byte sectors: DIRTY[sectors=0x6]."""
    f, sectors = int(pg["cache"]["flags"]), int(pg["cache"]["dirty"])
    names = [name for bit, name in FLAGS if f & bit]
    if "DIRTY" in names and sectors not in (0, 0xff):
        names[names.index("DIRTY")] = "DIRTY[sectors=%#x]" % sectors
    return "|".join(names) or "-"


def owner_text(pc):
    kind = frames.enum_name(N.PAGECACHE_KIND_ENUM, int(pc["kind"]))
    if kind == "PC_KIND_BLOCKDEV" or int(pc["owner"]) == 0:
        return kind
    ip = pc["owner"].cast(lookup_type(N.INODE, N.PROVIDER_PAGECACHE).pointer()).dereference()
    return "%s inode %d size %d" % (kind, int(ip["ino"]), int(ip["size"]))


def pfn_of(pg):
    db, _ = frames.frame_db()
    return (int(pg) - int(db)) // lookup_type(N.PAGE_STRUCT, N.PROVIDER_MM).sizeof


class PgCache(Command):
    """Show the page caches, or the pages of one.

Usage: pg-cache            every cache: its address, owner (a disk's cache,
                           or the inode of a file / tmpfs file, with its
                           number and size), pages and dirty pages
       pg-cache ADDR [MAX] the pages of the cache at ADDR (a struct
                           pagecache *, e.g. an inode's ->mapping), by file
                           index: index, byte offset, PFN, state
                           (UPTODATE, DIRTY, LOCKED, WRITEBACK; a page dirty
                           in part: DIRTY[sectors=MASK]); up to MAX
                           (default 64); ends with the counts, and a warning
                           if they differ from the cache's nrpages/ndirty."""

    NAME = "pg-cache"

    def run(self, args):
        if len(args) > 2:
            self.usage_error()
        if not args:
            n = 0
            for pc in caches():
                out("  cache %#x  %-40s pages %6d  dirty %6d" % (
                    int(pc.address), owner_text(pc), int(pc["nrpages"]), int(pc["ndirty"])))
                n += 1
            out("%d page cache(s)" % n)
            return
        try:
            addr = int(gdb.parse_and_eval(args[0]))
        except gdb.error as e:
            raise PagodaError("pg-cache: %s" % e)
        if addr == 0:
            raise PagodaError("pg-cache: 0 is no page cache")
        pc = gdb.Value(addr).cast(lookup_type(N.PAGECACHE, N.PROVIDER_PAGECACHE).pointer()).dereference()
        self.show(pc, int(args[1], 0) if len(args) > 1 else 64)

    @staticmethod
    def show(pc, limit):
        out("cache %#x: %s" % (int(pc.address), owner_text(pc)))
        n = dirty = 0
        for index, pg in pages(pc):
            flags = flag_names(pg)
            if n < limit:
                out("  index %8d  offset %#12x  PFN %#8x  %s" % (index, index * 4096, pfn_of(pg), flags))
            n += 1
            dirty += any(f.startswith("DIRTY") for f in flags.split("|"))
        if n > limit:
            out("  ... %d more" % (n - limit))
        out("%d page(s), %d dirty" % (n, dirty))
        if n != int(pc["nrpages"]) or dirty != int(pc["ndirty"]):
            out("warning: the cache says nrpages %d, ndirty %d" % (int(pc["nrpages"]), int(pc["ndirty"])))


PgCache()
