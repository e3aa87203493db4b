"""pagoda.lru -- pg-lru: the replacement lists (mm/frame/lru.h).

Five lists of frames, oldest first, that page replacement takes from:
anonymous pages hot and cold (mm/swap.h's policy, CLOCK-Pro's outline),
MADV_FREE's lazy-free pages (mm/lazyfree.h), and the page cache's active
and inactive pages (mm/pagecache_lru.h). A page's list shows in its flags:
AF_LRU on a list, AF_HOT on a hot one, AF_LAZYFREE on the lazy one; its
type (PG_ANON or PG_FILE) says which side.
"""
import gdb

from . import headers
from . import names as N
from .core import Command, PagodaError, list_entries, out, symbol_value
from .lazyfree import page_pfn

PAGE_HEADER = "mm/frame/page.h"
PROVIDER = "it comes with the replacement lists (mm/frame/lru.h)"
# The lists by the names pg-lru takes (enum lru_list's, lower case, less LRU_).
LISTS = ("cold", "hot", "lazy", "file_cold", "file_hot", "shmem_cold", "shmem_hot")
WHAT = {"cold": "anonymous, cold", "hot": "anonymous, hot", "lazy": "lazy-free (MADV_FREE)",
        "file_cold": "page cache, inactive", "file_hot": "page cache, active",
        "shmem_cold": "tmpfs, inactive", "shmem_hot": "tmpfs, active"}
FLAGS = ("AF_HOT", "AF_TEST", "AF_RECLAIM", "AF_REFERENCED", "AF_SWAPCACHE", "AF_READAHEAD",
         "AF_SHMEM")


def list_head(name):
    """(list head, the kernel's count) of list `name`."""
    index = int(gdb.parse_and_eval("LRU_" + name.upper()))
    return symbol_value(N.LRU_LISTS, PROVIDER)[index], int(symbol_value(N.LRU_NR, PROVIDER)[index])


def flag_names(pg):
    defs = headers.defines(PAGE_HEADER)
    f = int(pg["aflags"])
    return "|".join(n[3:] for n in FLAGS if n in defs and f & defs[n]) or "-"


def is_file(pg):
    return int(pg["type"]) == int(gdb.parse_and_eval("PG_FILE"))


def owner(pg):
    """Where a page belongs: its cache and index, or its anon_vma and index."""
    if is_file(pg):
        return "cache %#x index %d" % (int(pg["pagecache"]), int(pg["cache"]["index"]))
    return "anon_vma %#x index %#x" % (int(pg["anon"]["av"]), int(pg["anon"]["index"]))


class PgLru(Command):
    """Show the replacement lists, or the pages of one.

Usage: pg-lru                 every list: its pages walked, and the length
                              the kernel counts (lru_nr)
       pg-lru LIST [MAX]      LIST's pages oldest first (the order reclaim
                              takes them), up to MAX (default 50): frame,
                              type, flags, and the cache and index of a
                              page-cache page, the anon_vma and index of an
                              anonymous one
LIST is one of cold, hot, lazy (anonymous pages), file_cold, file_hot (the
page cache's inactive and active pages), shmem_cold, shmem_hot (tmpfs's,
which go to swap). A walked count that differs from the kernel's is printed
as a warning."""

    NAME = "pg-lru"

    def run(self, args):
        if len(args) > 2 or (args and args[0] not in LISTS):
            self.usage_error()
        if not args:
            for name in LISTS:
                self.count(name)
            return
        limit = int(args[1], 0) if len(args) > 1 else 50
        if limit < 0:
            raise PagodaError("pg-lru: MAX must not be negative")
        self.pages(args[0], limit)

    @staticmethod
    def count(name):
        head, counted = list_head(name)
        n = sum(1 for _ in list_entries(head, N.PAGE_STRUCT, N.PAGE_LINK))
        out("  %-10s %-24s %8d page(s)%s" % (name, WHAT[name], n,
            "" if n == counted else "  warning: lru_nr says %d" % counted))

    @staticmethod
    def pages(name, limit):
        head, counted = list_head(name)
        n = 0
        for pg in list_entries(head, N.PAGE_STRUCT, N.PAGE_LINK):
            if n < limit:
                out("  PFN %#8x  %-5s %-26s %s" % (page_pfn(pg), "file" if is_file(pg) else "anon",
                                                 flag_names(pg), owner(pg)))
            n += 1
        if n > limit:
            out("  ... %d more" % (n - limit))
        out("%d page(s) on list %s (%s)" % (n, name, WHAT[name]))
        if n != counted:
            out("warning: %s says %d" % (N.LRU_NR, counted))


PgLru()
