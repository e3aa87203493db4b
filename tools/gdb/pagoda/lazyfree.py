"""pagoda.lazyfree -- pg-lazyfree: the pages MADV_FREE gave up (mm/lazyfree.h).

A lazy-free page is an anonymous frame on the replacement lists' lazy list
(lru_lists[LRU_LAZY], mm/frame/lru.h; AF_LAZYFREE in its flags). Nothing in
the page table says "lazy": the entry is only clean. Reclaim takes the list
oldest first and finds each page's entry through the reverse map: still
clean, the entry is cleared and the frame freed; dirty (written since
MADV_FREE), the page is kept as normal memory.
"""
import gdb

from . import names as N
from . import pte
from .core import Command, list_entries, lookup_type, out, symbol_value
from .frames import frame_db
from .proc import owner_of
from .rmap import anon_places, anon_vma_of


def lazy_list():
    """(the lazy list's head, its length as the kernel counts it)."""
    l = int(gdb.parse_and_eval(N.LRU_LAZY))
    return symbol_value(N.LRU_LISTS, N.PROVIDER_LAZYFREE)[l], \
        int(symbol_value(N.LRU_NR, N.PROVIDER_LAZYFREE)[l])


def page_pfn(pg):
    frames, _ = frame_db()
    return (int(pg.address) - int(frames)) // pg.type.sizeof


def mapping(pg, pa):
    """(owner, va, entry) of the first entry that maps pg, or None."""
    av, avp, index = anon_vma_of(pg)
    if not av:
        return None
    for v, va, last in anon_places(avp, index):
        if va is not None and last.level == pte.PT and last.entry & pte.P \
                and pte.frame_addr(last.entry, pte.PT) == pa:
            aspace = gdb.Value(int(v["as"])).cast(lookup_type(N.ADDRSPACE, N.PROVIDER_LAZYFREE).pointer())
            return owner_of(aspace.dereference()[N.AS_PGT]), va, last.entry
    return None


class PgLazyfree(Command):
    """Show the lazy-free list: pages given back with MADV_FREE.

Usage: pg-lazyfree [MAX]
Walks the kernel's lazy list oldest first, the order reclaim takes the
pages, and prints up to MAX of them (default 50): the process and virtual
address of the entry mapping it (found through its anon_vma), the frame,
the entry and what reclaim would do with the page: discard it if the
dirty bit D is still clear (nobody wrote it since MADV_FREE), keep it if D
is set. Ends with the count, and a warning if it differs from the list's
length as the kernel counts it (what meminfo shows as LazyFree)."""

    NAME = "pg-lazyfree"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        limit = int(args[0], 0) if args else 50
        head, counted = lazy_list()
        n = 0
        for pg in list_entries(head, N.PAGE_STRUCT, N.PAGE_LINK):
            if n < limit:
                self.show(pg)
            n += 1
        if n > limit:
            out("  ... %d more" % (n - limit))
        out("%d page(s) on the lazy-free list" % n)
        if counted != n:
            out("warning: %s[%s] says %d" % (N.LRU_NR, N.LRU_LAZY, counted))

    @staticmethod
    def show(pg):
        """One page's line: owner, address, frame, entry, reclaim's verdict."""
        pfn = page_pfn(pg)
        found = mapping(pg, pfn << 12)
        if found is None:
            out("  %-22s VA %-14s  PFN %#8x  pte %-18s  %s"
                % ("-", "-", pfn, "-", "unmapped (being freed or swapped in)"))
            return
        who, va, e = found
        out("  %-22s VA %#014x  PFN %#8x  pte %#018x  %s"
            % (who, va, pfn, e, "dirty" if e & pte.D else "clean"))


PgLazyfree()
