"""pagoda.frames -- the frame database (mm/frame/page.h): one struct page per 4 KiB
physical frame, frames[pfn]. Command: pg-page."""
import gdb

from . import names as N
from .core import (Command, PagodaError, field, lookup_type, out, symbol_value,
                   to_int)
from .layout import p2v, read_cr3
from .paging import translate
from .pte import LEVEL_NAMES


def frame_db():
    """(frames pointer, max_pfn), or a PagodaError saying why not."""
    frames = symbol_value(N.FRAMES, N.PROVIDER_MM)
    max_pfn = int(symbol_value(N.MAX_PFN, N.PROVIDER_MM))
    if int(frames) == 0:
        raise PagodaError("'%s' is NULL: the frame database is not built yet "
                          "(stop after page_db_init)" % N.FRAMES)
    return frames, max_pfn


def page(pfn):
    """struct page of frame pfn (a gdb.Value)."""
    frames, max_pfn = frame_db()
    if not 0 <= pfn < max_pfn:
        raise PagodaError("PFN %#x is outside the frame database (max_pfn %#x)" % (pfn, max_pfn))
    return frames[pfn]


def enum_name(enum_type, value):
    """Enumerator name for value in enum_type ('enum page_type'), or the number."""
    try:
        t = gdb.lookup_type(enum_type)
    except gdb.error:
        return str(value)
    return next((f.name for f in t.fields() if f.enumval == value), str(value))


def type_name(pg):
    return enum_name(N.PAGE_TYPE_ENUM, int(field(pg, N.PAGE_TYPE, N.PAGE_STRUCT)))


def is_pagetable(pg):
    return type_name(pg).endswith("PAGETABLE")


def pt_counts(pa):
    """(share count, present count, level) of the page-table page at pa."""
    pg = page(pa >> 12)
    if not is_pagetable(pg):
        raise PagodaError("frame %#x is not a page-table page (type %s)" % (pa, type_name(pg)))
    pt = field(pg, N.PAGE_PT, N.PAGE_STRUCT)
    return (int(field(pt, N.PT_SHARE, "struct page.pt")), int(field(pg, N.PAGE_COUNT, N.PAGE_STRUCT)),
            int(field(pt, N.PT_LEVEL, "struct page.pt")))


def pt_sharers(pa):
    """Address spaces sharing the page-table page at pa: its share count less
    a published text page's record's share (mm/pt/ptpage.h ptpage_sharers),
    as ptdraw shows it."""
    share, _, _ = pt_counts(pa)
    pt = field(page(pa >> 12), N.PAGE_PT, N.PAGE_STRUCT)
    return max(share - (1 if int(field(pt, N.PT_TEXT, "struct page.pt")) else 0), 1)


def pt_zero_count(pa):
    """Entries of the PT page at pa that map the shared zero page."""
    pt = field(page(pa >> 12), N.PAGE_PT, N.PAGE_STRUCT)
    return int(field(pt, N.PT_ZERO, "struct page.pt"))


def pt_swap_count(pa):
    """Entries of the PT page at pa that are swap entries (pages out on
    swap: counted in its present count, not resident); 0 for a kernel
    without swap."""
    pg = page(pa >> 12)
    try:
        return int(field(pg, N.PAGE_PTSWAP, N.PAGE_STRUCT))
    except PagodaError:
        return 0


def zero_frame():
    """Physical address of the shared zero page (0: none yet)."""
    return int(symbol_value(N.ZERO_FRAME_PA, N.PROVIDER_MM))


def frame_mappers(pa):
    """PT pages mapping frame pa, as mm/memstat.c counts them for PSS: its
    reference count less the one a file or shared-memory frame (PG_FILE)
    holds for its object; 1 outside the database or for reserved frames."""
    try:
        pg = page(pa >> 12)
    except PagodaError:
        return 1
    kind = type_name(pg)
    if kind.endswith("RESERVED"):
        return 1
    n = int(field(pg, N.PAGE_REFCOUNT, N.PAGE_STRUCT)) - (1 if kind.endswith("FILE") else 0)
    return max(n, 1)


def pt_counts_text(pa):
    """One phrase about the PT page at pa for pg-walk; never raises."""
    try:
        share, present, _ = pt_counts(pa)
        sharers = pt_sharers(pa)
        if sharers != share:   # a published text page: its record holds one
            return "share count %d (%d address spaces and its text record), present count %d" % (
                share, sharers, present)
        return "share count %d, present count %d" % (share, present)
    except PagodaError as e:
        return "no counts: %s" % e


def describe_page(pfn):
    """Lines describing frame pfn: what it is, then its raw struct page."""
    pg = page(pfn)
    lookup_type(N.PAGE_STRUCT, N.PROVIDER_MM)
    lines = ["PFN %#x  PA %#x  direct-map VA %#x  struct page at %#x"
             % (pfn, pfn << 12, p2v(pfn << 12), int(pg.address))]
    kind = type_name(pg)
    lines.append("  type %s, refcount %d, order %d"
                 % (kind, int(pg[N.PAGE_REFCOUNT]), int(pg[N.PAGE_ORDER])))
    if is_pagetable(pg):
        share, present, level = pt_counts(pfn << 12)
        lines.append("  page-table page: level %s, share count %d, present entries %d"
                     % (LEVEL_NAMES.get(level, level), share, present))
    lines.append("  raw: " + pg.format_string(pretty_structs=False))
    return lines


class PgPage(Command):
    """Show the struct page of a physical frame (mm/frame/page.h frame database).

Usage: pg-page PFN | pg-page -p PA | pg-page -v VA
  PFN     frame number (an expression: 0x105, $pfn, pg - frames, ...)
  -p PA   the frame holding physical address PA
  -v VA   the frame that virtual address VA maps to (current CR3)
Prints the frame's type, reference count, buddy order and, for a page-table
page, its level, SHARE count (address spaces pointing at it) and PRESENT
count (entries in use), then the raw structure."""

    NAME = "pg-page"

    def run(self, args):
        flag = args[0] if args and args[0] in ("-p", "-v") else None
        expr = " ".join(args[1:] if flag else args)     # spaces allowed
        if not expr:
            self.usage_error()
        if flag == "-p":
            pfn = to_int(expr) >> 12
        elif flag == "-v":
            pa = translate(read_cr3(), to_int(expr))
            if pa is None:
                raise PagodaError("%s is not mapped" % expr)
            pfn = pa >> 12
        else:
            pfn = to_int(expr)
        for line in describe_page(pfn):
            out(line)


PgPage()
