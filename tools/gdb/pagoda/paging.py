"""pagoda.paging -- walking x86-64 4-level page tables from gdb.

The same walk the MMU does: CR3 -> PML4 -> PDPT -> PD -> PT, 9 bits of the
virtual address per level; an entry with PS set in a PDPT (1 GiB) or PD
(2 MiB) is a leaf. Tables are read from physical memory through the direct
map (pagoda.layout.read_u64s).
"""
from collections import namedtuple

from . import pte
from .layout import read_u64s
from .pte import PML4, PT, ENTRIES

# One step of a walk: the table (physical address, level), the index used,
# and the entry found there.
Step = namedtuple("Step", "level table_pa index entry")

# One page-table page met on a walk: its level and physical address, the
# table whose entry points at it (None for the root) and that entry, and the
# first virtual address it maps.
Table = namedtuple("Table", "level pa parent entry va")

# One leaf mapping: [va, va + size) -> pa, with the entries of every level
# on the way (path[0] is the PML4 entry, path[-1] the leaf).
Leaf = namedtuple("Leaf", "va size pa path")


def table_of(cr3):
    return cr3 & pte.ADDR_MASK


def walk(cr3, va):
    """The steps of translating va, down to the leaf or the first non-present
    entry."""
    steps = []
    table = table_of(cr3)
    for level in range(PML4, PT - 1, -1):
        i = pte.index(va, level)
        entry = read_u64s(table + 8 * i, 1)[0]
        steps.append(Step(level, table, i, entry))
        if not entry & pte.P or pte.is_leaf(entry, level):
            break
        table = pte.frame_addr(entry, level)
    return steps


def translate(cr3, va):
    """Physical address va maps to, or None if it is not mapped."""
    last = walk(cr3, va)[-1]
    if not last.entry & pte.P:
        return None
    span = pte.entry_span(last.level)
    return pte.frame_addr(last.entry, last.level) + (va & (span - 1))


def effective(path):
    """(writable, user, executable) after combining every level: writable and
    user only if every level allows it, executable unless any level has NX."""
    return (all(e & pte.W for e in path), all(e & pte.U for e in path),
            not any(e & pte.NX for e in path))


def leaves(cr3, lo=0, hi=1 << 64, on_table=None):
    """Every mapped leaf (present or PROT_NONE) with lo <= va < hi, in address order.
    on_table(level, pa, path) is called for every table page visited below the
    PML4 (path = entries leading to it) -- used to count page-table pages."""
    def visit(table, level, base, path):
        entries = read_u64s(table, ENTRIES)
        span = pte.entry_span(level)
        for i, entry in enumerate(entries):
            va = pte.canonical(base + i * span)
            if not pte.is_mapped(entry) or va + span <= lo or va >= hi:
                continue
            if pte.is_leaf(entry, level):
                yield Leaf(va, span, pte.frame_addr(entry, level), path + [entry])
            else:
                child = pte.frame_addr(entry, level)
                if on_table:
                    on_table(level - 1, child, path + [entry])
                yield from visit(child, level - 1, base + i * span, path + [entry])
    yield from visit(table_of(cr3), PML4, 0, [])


def tables(cr3, lo=0, hi=1 << 64, depth=4):
    """Every page-table page of cr3 that maps part of [lo, hi), root first,
    then depth-first in address order, down to `depth` levels (4: the PML4
    down to the PT pages; 1: the PML4 alone). A table linked from several
    entries is yielded once per entry."""
    def visit(table, level, base):
        if PML4 - level + 1 >= depth:
            return
        span = pte.entry_span(level)
        for i, entry in enumerate(read_u64s(table, ENTRIES)):
            va = pte.canonical(base + i * span)
            if not entry & pte.P or pte.is_leaf(entry, level) or va + span <= lo or va >= hi:
                continue
            child = pte.frame_addr(entry, level)
            yield Table(level - 1, child, table, entry, va)
            yield from visit(child, level - 1, base + i * span)
    root = table_of(cr3)
    yield Table(PML4, root, None, None, 0)
    yield from visit(root, PML4, 0)
