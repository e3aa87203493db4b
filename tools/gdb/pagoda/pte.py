"""pagoda.pte -- decoding x86-64 page-table entries.

Hardware bit positions are the architecture's (Intel SDM vol. 3, 4.5). The
names of Pagoda's software bits (bits 9-11 and 52-58, which the CPU ignores)
are read from arch/x86_64/pte.h: every `#define PTE_NAME (1UL << N)` with N in
a software position becomes the flag NAME (PTE_COW -> COW).
"""
from . import headers

PTE_HEADER = "arch/x86_64/pte.h"

P, W, U, PWT, PCD, A, D, PS, G = (1 << b for b in range(9))
NX = 1 << 63
HARDWARE_BITS = [(P, "P"), (W, "W"), (U, "U"), (PWT, "PWT"), (PCD, "PCD"), (A, "A"),
                 (D, "D"), (PS, "PS"), (G, "G"), (NX, "NX")]
SOFTWARE_POSITIONS = [9, 10, 11] + list(range(52, 59))
ADDR_MASK = 0x000ffffffffff000

# Levels, numbered from the leaf up like arch/x86_64/pte.h's PGL_*.
PT, PD, PDPT, PML4 = 1, 2, 3, 4
LEVEL_NAMES = {PML4: "PML4", PDPT: "PDPT", PD: "PD", PT: "PT"}
ENTRIES = 512


def entry_span(level):
    """Bytes mapped by one entry of a level-`level` table."""
    return 1 << (12 + 9 * (level - 1))


def index(va, level):
    return (va >> (12 + 9 * (level - 1))) & (ENTRIES - 1)


def canonical(va):
    """Sign-extend bit 47."""
    return va | ~((1 << 48) - 1) & 0xffffffffffffffff if va & (1 << 47) else va


def software_bits():
    """[(mask, NAME)] of the software bits pte.h names; [] before it exists."""
    found = []
    for name, value in sorted(headers.defines(PTE_HEADER).items(), key=lambda kv: kv[1]):
        if not name.startswith("PTE_") or value <= 0 or value & (value - 1):
            continue
        if value.bit_length() - 1 in SOFTWARE_POSITIONS:
            found.append((value, name[len("PTE_"):]))
    return found


def is_leaf(entry, level):
    return level == PT or (level in (PD, PDPT) and bool(entry & PS))


def is_mapped(entry):
    """Does a leaf entry map a frame: present, or (once pte.h names
    PTE_PROTNONE) a PROT_NONE leaf, kept not present with its frame (pte.h's
    pte_mapped)?"""
    protnone = headers.defines(PTE_HEADER).get("PTE_PROTNONE", 0)
    return bool(entry & (P | protnone))


def frame_addr(entry, level):
    """Physical address the entry points at (next table, or the page). For a
    large page, bit 12 is PAT, so the address is aligned to the page size."""
    addr = entry & ADDR_MASK
    if level != PT and is_leaf(entry, level):
        addr &= ~(entry_span(level) - 1)
    return addr


def flag_names(entry, level):
    """Names of the set bits: hardware ones, then the software ones."""
    names = []
    for mask, name in HARDWARE_BITS:
        if entry & mask:
            names.append("PAT" if mask == PS and level == PT else name)
    names += [name for mask, name in software_bits() if entry & mask]
    return names


def is_protnone(entry, level):
    """A PROT_NONE leaf (pte.h's pte_protnone): not present, so every access
    faults, but it keeps its frame (PTE_PROTNONE set)."""
    mask = headers.defines(PTE_HEADER).get("PTE_PROTNONE", 0)
    return level == PT and not entry & P and bool(entry & mask)


def is_swap(entry, level):
    """A swap entry (pte.h's pte_is_swap): a PT entry, not present, not
    PROT_NONE, with PTE_SWAP: a page out on swap, naming its area and slot."""
    d = headers.defines(PTE_HEADER)
    mask, protnone = d.get("PTE_SWAP", 0), d.get("PTE_PROTNONE", 0)
    return level == PT and bool(mask) and entry & (P | protnone | mask) == mask


def swap_area(entry):
    """The area of a swap entry: bits 1..4 (pte.h's pte_swap_area)."""
    return (entry >> 1) % headers.defines(PTE_HEADER).get("PTE_SWAP_AREAS", 16)


def swap_slot(entry):
    """The slot of a swap entry: the address bits (pte.h's pte_swap_slot)."""
    return (entry & ADDR_MASK) >> 12


def describe(entry, level):
    if entry & P:
        return " ".join(flag_names(entry, level))
    if is_protnone(entry, level):
        return "not present: " + " ".join(flag_names(entry, level))
    if is_swap(entry, level):
        return "swap: area %d, slot %d" % (swap_area(entry), swap_slot(entry))
    return "not present"
