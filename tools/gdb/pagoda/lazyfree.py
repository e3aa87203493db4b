"""pagoda.lazyfree -- pg-lazyfree: the MADV_FREE lazy-free list."""
from . import names as N
from .core import Command, PagodaError, list_entries, out, symbol_value
from .frames import frame_db, type_name


class PgLazyfree(Command):
    """Show the lazy-free list: pages given back with MADV_FREE.

Usage: pg-lazyfree [MAX]
Walks the kernel's lazy-free list (oldest first, the order reclaim takes
them) and prints each frame's PFN, physical address, type and reference
count, up to MAX lines (default 50), then the total. A page on this list is
still mapped; reclaim discards it only if its dirty bit is still clear."""

    NAME = "pg-lazyfree"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        limit = int(args[0], 0) if args else 50
        head = symbol_value(N.LAZYFREE_LIST, N.PROVIDER_LAZYFREE)
        frames, _ = frame_db()
        n = 0
        for pg in list_entries(head, N.PAGE_STRUCT, N.PAGE_LINK):
            pfn = int(pg.address - frames)
            if n < limit:
                out("  PFN %#8x  PA %#12x  %-12s refcount %d" % (pfn, pfn << 12, type_name(pg),
                                                                int(pg[N.PAGE_REFCOUNT])))
            n += 1
        if n > limit:
            out("  ... %d more" % (n - limit))
        out("%d page(s) on the lazy-free list" % n)
        try:
            kept = int(symbol_value(N.LAZYFREE_COUNT, N.PROVIDER_LAZYFREE))
            if kept != n:
                out("warning: %s says %d" % (N.LAZYFREE_COUNT, kept))
        except PagodaError:
            pass


PgLazyfree()
