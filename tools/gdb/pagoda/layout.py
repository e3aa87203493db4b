"""pagoda.layout -- the memory map, physical memory and CR3.

Constants come from arch/x86_64/memlayout.h (pagoda.headers). Physical
memory is read the way the kernel reads it: through the direct map, at
virtual address DIRECT_MAP_BASE + PA, with the page tables that are live on
the CPU gdb is stopped on.
"""
import struct

import gdb

from . import headers
from .core import PagodaError, to_int

MEMLAYOUT = "arch/x86_64/memlayout.h"


def const(name):
    return headers.require(MEMLAYOUT, name)


def p2v(pa):
    """Direct-map virtual address of physical address pa."""
    return const("DIRECT_MAP_BASE") + pa


def read_cr3():
    """CR3 of the stopped CPU (QEMU's gdbstub exposes it as $cr3)."""
    cr3 = to_int("$cr3")
    if cr3 == 0:
        raise PagodaError("CR3 is 0: paging is not on yet -- stop in 64-bit code first "
                          "(hbreak kmain, then continue)")
    return cr3


def read_virt(va, size):
    try:
        return bytes(gdb.selected_inferior().read_memory(va, size))
    except gdb.MemoryError:
        raise PagodaError("cannot read %d bytes at %#x: not mapped by the current page tables"
                          % (size, va))


def read_phys(pa, size):
    """size bytes of physical memory at pa, read through the direct map."""
    try:
        return bytes(gdb.selected_inferior().read_memory(p2v(pa), size))
    except gdb.MemoryError:
        raise PagodaError("cannot read PA %#x through the direct map at %#x "
                          "(paging not on yet, or PA beyond the mapped RAM)" % (pa, p2v(pa)))


def read_u64s(pa, count):
    """count little-endian 64-bit words at physical address pa."""
    return struct.unpack("<%dQ" % count, read_phys(pa, 8 * count))


def regions():
    """(start, end, name, pa_of) for each area of the memory map; pa_of maps a
    VA of the area to its PA when the area is a fixed linear map, else None."""
    dm, dm_max = const("DIRECT_MAP_BASE"), const("DIRECT_MAP_MAX")
    kvma = const("KERNEL_VMA")
    return [
        (0, const("USER_NULL_GUARD"), "user null guard (never mapped)", None),
        (const("USER_TEXT_BASE"), const("USER_TOP"), "user space", None),
        (const("USER_TOP"), dm, "non-canonical hole / guard", None),
        (dm, dm + dm_max, "direct map", lambda va: va - dm),
        (const("KSTACK_BASE"), kvma, "kernel stacks", None),
        (kvma, 1 << 64, "kernel image", lambda va: va - kvma),
    ]


def region_of(va):
    """(name, pa or None) of the memory-map area holding va."""
    for start, end, name, pa_of in regions():
        if start <= va < end:
            return name, (pa_of(va) if pa_of else None)
    return "unused kernel-half hole", None
