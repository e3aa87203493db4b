"""pagoda.lazyfree -- pg-lazyfree: the MADV_FREE lazy-free list (mm/lazyfree.h).

Each record on lazyfree_list covers one PT page of one address space (2 MiB
at rec.va) and has a bit per lazy-free page in it (rec.lazy[]); the page's
state is in its leaf entry: LAZYFREE set, and the hardware dirty bit D clear
until the program writes the page again.
"""
from . import names as N
from . import pte
from .core import Command, PagodaError, list_entries, out, symbol_value
from .paging import walk
from .proc import owner_of, pagetable_cr3


PAGE = 4096
BITS = 64


def record_pages(rec):
    """The virtual addresses of the pages record rec counts, in order."""
    base, words = int(rec["va"]), rec["lazy"]
    n = words.type.sizeof // words[0].type.sizeof
    return [base + (w * BITS + b) * PAGE for w in range(n)
            for b in range(BITS) if int(words[w]) >> b & 1]


def entry_state(cr3, va):
    """(leaf entry or None, what reclaim would do with it)."""
    last = walk(cr3, va)[-1]
    e = last.entry
    if last.level != pte.PT or not pte.is_mapped(e):
        return None, "NOT MAPPED (stale record?)"
    names = pte.flag_names(e, pte.PT)
    if "LAZYFREE" not in names:
        return e, "no LAZYFREE bit (stale record?)"
    return e, "dirty: rewritten, reclaim keeps it" if e & pte.D else "clean: reclaim may discard it"


class PgLazyfree(Command):
    """Show the lazy-free list: pages given back with MADV_FREE.

Usage: pg-lazyfree [MAX]
Walks the kernel's lazy-free list oldest first, the order reclaim takes
them (one record per PT page, its pages in address order), and prints up to
MAX pages (default 50): the process and virtual address, the frame, the
leaf entry and what reclaim would do with the page:
discard it if the dirty bit D is still clear (nobody wrote it since
MADV_FREE), keep it if D is set. Ends with the count, and a warning if it
differs from lazyfree_stats.pages (what meminfo shows as LazyFree)."""

    NAME = "pg-lazyfree"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        limit = int(args[0], 0) if args else 50
        head = symbol_value(N.LAZYFREE_LIST, N.PROVIDER_LAZYFREE)
        n = 0
        for rec in list_entries(head, N.LAZYFREE_REC, "link"):
            for va in record_pages(rec):
                if n < limit:
                    self.show(rec, va)
                n += 1
        if n > limit:
            out("  ... %d more" % (n - limit))
        out("%d page(s) on the lazy-free list" % n)
        try:
            kept = int(symbol_value(N.LAZYFREE_STATS, N.PROVIDER_LAZYFREE)["pages"])
        except PagodaError:
            return
        if kept != n:
            out("warning: %s.pages says %d" % (N.LAZYFREE_STATS, kept))

    @staticmethod
    def show(rec, va):
        """One page's line: owner, address, frame, entry, reclaim's verdict."""
        e, state = entry_state(pagetable_cr3(rec["pgt"]), va)
        pfn = pte.frame_addr(e, pte.PT) >> 12 if e is not None else 0
        out("  %-22s VA %#014x  PFN %#8x  pte %s  %s"
            % (owner_of(rec["pgt"]), va, pfn, "%#018x" % e if e is not None else "-", state))


PgLazyfree()
