"""pagoda.rmap -- pg-mappers: who maps an object's pages, or an anonymous
page (the reverse maps).

An object (struct vmobject: a file's inode->vmobj, or shared anonymous
memory's) keeps every VMA that maps it on obj->mappings (mm/vmobject.h):
the list a truncation, a write-back and reclaim walk (mm/rmap.c). This
prints that list, and for a page index where each VMA would map it and
what the VMA's page table holds there.

An anonymous page names its anon_vma and its index there (mm/anon_rmap.h);
the anon_vma lists every VMA of the fork family that may map it. For such
a page this prints each VMA, where the page would be in it, the entry found
there and the PT page holding that entry, and how many distinct entries
those are: with shared page tables several address spaces reach one entry
(one PT page), which reclaim then writes once for all of them.
"""
import gdb

from . import names as N
from . import pte
from .core import Command, PagodaError, list_entries, lookup_type, out, to_int
from .frames import page, pt_sharers, type_name
from .layout import read_cr3
from .paging import translate, walk
from .proc import pagetable_cr3, processes, prot_text, vma_flag_names

PAGE_SIZE = 4096


def mappings(obj):
    """The VMAs on obj's mappings list (gdb.Values of struct vma), in order."""
    vma_t = lookup_type(N.VMA, N.PROVIDER_RMAP)
    offset = next(f.bitpos // 8 for f in vma_t.fields() if f.name == N.VMA_OBJ_LINK)
    head = obj[N.OBJ_MAPPINGS].address
    node, seen = obj[N.OBJ_MAPPINGS]["next"], 0
    while int(node) != int(head):
        seen += 1
        if seen > 100000:
            raise PagodaError("pg-mappers: the mappings list does not end (corrupt?)")
        yield gdb.Value(int(node) - offset).cast(vma_t.pointer()).dereference()
        node = node.dereference()["next"]


def owners(aspace):
    """pids (and names) of the processes whose address space is aspace."""
    return ["%d (%s)" % (int(p["pid"]), p["name"].string()) for p in processes()
            if int(p["as"]) == aspace]


def vma_line(v):
    """One VMA as pg-mappers lists it: address space, processes, range,
    protection, kinds, offset."""
    aspace = int(v["as"])
    who = ", ".join(owners(aspace)) or "no process"
    return "  as %#x [%s]  %#014x-%#014x %s %s @%#x" % (
        aspace, who, int(v["start"]), int(v["end"]), prot_text(int(v["prot"])),
        ",".join(vma_flag_names(int(v["flags"]))), int(v["obj_off"]))


def vma_cr3(v):
    pgt = gdb.Value(int(v["as"])).cast(lookup_type(N.ADDRSPACE, N.PROVIDER_RMAP).pointer())
    return pagetable_cr3(pgt.dereference()[N.AS_PGT])


def entry_text(entry, pa):
    """What a PT entry holds, said against the page at pa."""
    if entry & pte.P:
        at = pte.frame_addr(entry, pte.PT)
        return "maps it" if at == pa else "maps another frame, PA %#x" % at
    if pte.is_swap(entry, pte.PT):
        return "swap: area %d, slot %d" % (pte.swap_area(entry), pte.swap_slot(entry))
    return "not mapped"


def anon_vma_of(pg):
    """(anon_vma pointer as int, its struct, the page's index) of an
    anonymous page, or (0, None, index) when it is on no reverse map."""
    anon = pg[N.PAGE_ANON]
    av, index = int(anon["av"]), int(anon["index"])
    if av == 0:
        return 0, None, index
    return av, gdb.Value(av).cast(lookup_type(N.ANON_VMA, N.PROVIDER_ANON_RMAP).pointer()
                                  ).dereference(), index


def anon_places(avp, index):
    """For each VMA of anon_vma avp: (vma, va of the index there or None,
    the last walk step at va or None)."""
    for v in list_entries(avp[N.ANON_VMAS], N.VMA, N.VMA_ANON_LINK):
        va = int(v["start"]) + index * PAGE_SIZE - int(v["obj_off"])
        if not int(v["start"]) <= va < int(v["end"]):
            yield v, None, None
            continue
        yield v, va, walk(vma_cr3(v), va)[-1]


def anon_mappers(pa):
    """pg-mappers -p/-v: the VMAs of an anonymous page's anon_vma, the entry
    each reaches and the PT page holding it."""
    pg = page(pa >> 12)
    if not type_name(pg).endswith("ANON"):
        raise PagodaError("pg-mappers: frame %#x is not an anonymous page (type %s); for a "
                          "file's page give its object: pg-mappers OBJ INDEX" % (pa, type_name(pg)))
    av, avp, index = anon_vma_of(pg)
    if av == 0:
        raise PagodaError("pg-mappers: anonymous page %#x is on no reverse map yet" % pa)
    out("anonymous page PA %#x: anon_vma %#x (refs %d), index %#x, refcount %d" % (
        pa, av, int(avp["refs"]), index, int(pg[N.PAGE_REFCOUNT])))
    vmas, entries = 0, {}
    for v, va, last in anon_places(avp, index):
        vmas += 1
        out(vma_line(v))
        if va is None:
            out("    not in this VMA (index outside it)")
            continue
        if last.level != pte.PT:
            out("    at %#x: no PT page there" % va)
            continue
        entries.setdefault((last.table_pa, last.index), []).append(int(v["as"]))
        out("    at %#x: entry %d of PT page %#x (%d sharer(s)): %s" % (
            va, last.index, last.table_pa, pt_sharers(last.table_pa), entry_text(last.entry, pa)))
    out("%d mapping(s) reach %d distinct entr%s" % (vmas, len(entries),
                                                     "y" if len(entries) == 1 else "ies"))


class PgMappers(Command):
    """List who maps an object's pages, or an anonymous page: the reverse maps.

Usage: pg-mappers OBJ [INDEX] | pg-mappers -p PA | pg-mappers -v VA
OBJ is a struct vmobject * (a file's: &((struct inode *)ADDR)->vmobj).
One line per VMA on its mappings list: the address space and the
processes using it, the range, protection, kinds and file offset. With
INDEX (a page of the object), where each VMA maps that page and what its
page table holds there: the physical address, or "not mapped" (a fault
will bring it). Ends with the count; a VMA whose object is not OBJ is a
corrupt list (warning).
-p PA (or -v VA, mapped in the current CR3) names an anonymous page: one
line per VMA of its anon_vma, then where the page is in it, which entry of
which PT page (and how many address spaces share that PT page) and what the
entry holds: "maps it", a swap entry, another frame (a COW copy) or nothing.
Ends with how many distinct entries the VMAs reach: fewer than the VMAs
when page tables are shared."""

    NAME = "pg-mappers"

    def run(self, args):
        if args and args[0] in ("-p", "-v"):
            if len(args) != 2:
                self.usage_error()
            pa = to_int(args[1])
            if args[0] == "-v":
                pa = translate(read_cr3(), pa)
                if pa is None:
                    raise PagodaError("pg-mappers: %s is not mapped" % args[1])
            anon_mappers(pa & ~(PAGE_SIZE - 1))
            return
        if not 1 <= len(args) <= 2:
            self.usage_error()
        try:
            addr = int(gdb.parse_and_eval(args[0]))
            index = int(gdb.parse_and_eval(args[1])) if len(args) > 1 else None
        except gdb.error as e:
            raise PagodaError("pg-mappers: %s" % e)
        if addr == 0:
            raise PagodaError("pg-mappers: 0 is no object")
        obj = gdb.Value(addr).cast(lookup_type(N.VMOBJECT, N.PROVIDER_RMAP).pointer()).dereference()
        out("object %#x: refs %d, pages %d, rmap_seq %d" % (addr, int(obj["refs"]),
                                                           int(obj["npages"]), int(obj["rmap_seq"])))
        n = 0
        for v in mappings(obj):
            n += 1
            self.show(v, addr, index)
        out("%d mapping(s)" % n)

    @staticmethod
    def show(v, addr, index):
        start, end, off = int(v["start"]), int(v["end"]), int(v["obj_off"])
        out(vma_line(v))
        if int(v["obj"]) != addr:
            out("  warning: this VMA's object is %#x" % int(v["obj"]))
        if index is None:
            return
        va = start + index * PAGE_SIZE - off
        if not start <= va < end:
            out("    page %d: outside this VMA" % index)
            return
        pa = translate(vma_cr3(v), va)
        out("    page %d at %#x: %s" % (index, va, "PA %#x" % pa if pa is not None else "not mapped"))


PgMappers()
