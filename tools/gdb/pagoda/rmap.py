"""pagoda.rmap -- pg-mappers: who maps an object's pages (the reverse map).

An object (struct vmobject: a file's inode->vmobj, or shared anonymous
memory's) keeps every VMA that maps it on obj->mappings (mm/vmobject.h):
the list a truncation, a write-back and reclaim walk (mm/rmap.c). This
prints that list, and for a page index where each VMA would map it and
what the VMA's page table holds there.
"""
import gdb

from . import names as N
from .core import Command, PagodaError, lookup_type, out
from .paging import translate
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


class PgMappers(Command):
    """List who maps an object's pages: its reverse map.

Usage: pg-mappers OBJ [INDEX]
OBJ is a struct vmobject * (a file's: &((struct inode *)ADDR)->vmobj).
One line per VMA on its mappings list: the address space and the
processes using it, the range, protection, kinds and file offset. With
INDEX (a page of the object), where each VMA maps that page and what its
page table holds there: the physical address, or "not mapped" (a fault
will bring it). Ends with the count; a VMA whose object is not OBJ is a
corrupt list (warning)."""

    NAME = "pg-mappers"

    def run(self, args):
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
        aspace = int(v["as"])
        start, end, off = int(v["start"]), int(v["end"]), int(v["obj_off"])
        who = ", ".join(owners(aspace)) or "no process"
        out("  as %#x [%s]  %#014x-%#014x %s %s @%#x" % (
            aspace, who, start, end, prot_text(int(v["prot"])),
            ",".join(vma_flag_names(int(v["flags"]))), off))
        if int(v["obj"]) != addr:
            out("  warning: this VMA's object is %#x" % int(v["obj"]))
        if index is None:
            return
        va = start + index * PAGE_SIZE - off
        if not start <= va < end:
            out("    page %d: outside this VMA" % index)
            return
        pgt = gdb.Value(aspace).cast(lookup_type(N.ADDRSPACE, N.PROVIDER_RMAP).pointer())
        pa = translate(pagetable_cr3(pgt.dereference()[N.AS_PGT]), va)
        out("    page %d at %#x: %s" % (index, va, "PA %#x" % pa if pa is not None else "not mapped"))


PgMappers()
