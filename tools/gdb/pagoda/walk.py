"""pagoda.walk -- pg-walk (one address, level by level) and pg-ptdump (every
mapping of an address space, merged into ranges)."""
from . import pte
from .core import Command, PagodaError, human_size, out, to_int
from .frames import pt_counts_text
from .layout import read_cr3, region_of
from .paging import effective, leaves, table_of, walk
from .proc import address_space_cr3, find_process
from .pte import LEVEL_NAMES


def cr3_arg(args, i):
    """The root to walk from args[i:]: 'CR3', '-p PID', or nothing (the CPU's)."""
    rest = args[i:]
    if not rest:
        return read_cr3()
    if rest[0] == "-p" and len(rest) == 2:
        cr3 = address_space_cr3(find_process(to_int(rest[1])))
        if cr3 is None:
            raise PagodaError("process %s has no user address space" % rest[1])
        return cr3
    if len(rest) == 1:
        return to_int(rest[0])
    raise PagodaError("expected CR3 or -p PID, got: %s" % " ".join(rest))


def perms(path):
    """'rwx'-style effective permissions plus user/kernel: 'rw- user'."""
    w, u, x = effective(path)
    return "r%s%s %s" % ("w" if w else "-", "x" if x else "-", "user" if u else "kernel")


class PgWalk(Command):
    """Walk the four page-table levels for a virtual address.

Usage: pg-walk VA [CR3 | -p PID]
  VA      any expression: 0xffffffff80100000, kmain, &boot_info, $rsp
  CR3     root to walk (default: the CPU's $cr3)
  -p PID  walk that process's page table (pg-ps lists them)
For each level prints the table's physical address, the index taken from VA,
the entry's raw value and its flags (hardware: P W U PWT PCD A D PS G NX,
bit 7 of a PT entry shown as PAT; software bits named in
arch/x86_64/pte.h), and where it points. When the
walk passes through a last-level PT page, shows that page's share count and
present count from its struct page. Ends with the physical address and the
effective permissions (W and U only if EVERY level allows, NX if ANY sets it)."""

    NAME = "pg-walk"

    def run(self, args):
        if not 1 <= len(args) <= 3:
            self.usage_error()
        va = to_int(args[0])
        cr3 = cr3_arg(args, 1)
        if pte.canonical(va & ((1 << 48) - 1)) != va:
            raise PagodaError("%#x is not canonical (bits 63..48 must copy bit 47)" % va)
        idx = " ".join("%s[%d]" % (LEVEL_NAMES[l], pte.index(va, l)) for l in range(4, 0, -1))
        out("VA %#x  (%s, offset %#x)  CR3 %#x" % (va, idx, va & 0xfff, cr3))
        steps = walk(cr3, va)
        for s in steps:
            head = "  %-4s[%3d] @PA %#-10x = %#018x  %-22s" % (
                LEVEL_NAMES[s.level], s.index, s.table_pa + 8 * s.index, s.entry,
                pte.describe(s.entry, s.level))
            out(head + self.target(s))
            if s.level == pte.PD and s.entry & pte.P and not pte.is_leaf(s.entry, s.level):
                out("            PT page %#x: %s" % (pte.frame_addr(s.entry, s.level),
                                                   pt_counts_text(pte.frame_addr(s.entry, s.level))))
        last = steps[-1]
        area, _ = region_of(va)
        if pte.is_protnone(last.entry, last.level):
            out("=> PROT_NONE: frame at PA %#x kept, entry not present (every access "
                "faults)   [%s]" % (pte.frame_addr(last.entry, last.level), area))
            return
        if pte.is_swap(last.entry, last.level):
            slot = pte.swap_slot(last.entry)
            out("=> swapped out: area %d, slot %d (bytes %#x..%#x of its disk)   [%s]" % (
                pte.swap_area(last.entry), slot, slot * 4096, slot * 4096 + 4095, area))
            return
        if not last.entry & pte.P:
            out("=> not mapped (no present entry at the %s level)   [%s]" % (LEVEL_NAMES[last.level], area))
            return
        span = pte.entry_span(last.level)
        pa = pte.frame_addr(last.entry, last.level) + (va & (span - 1))
        out("=> PA %#x in a %s page, %s   [%s]" % (pa, human_size(span),
                                                 perms([s.entry for s in steps]), area))

    @staticmethod
    def target(step):
        if not pte.is_mapped(step.entry):
            return ""
        addr = pte.frame_addr(step.entry, step.level)
        if pte.is_leaf(step.entry, step.level):
            return "-> %s page at PA %#x" % (human_size(pte.entry_span(step.level)), addr)
        return "-> %s at PA %#x" % (LEVEL_NAMES[step.level - 1], addr)


class PgPtdump(Command):
    """Summarise every present mapping of an address space as ranges.

Usage: pg-ptdump [-u|-k] [CR3 | -p PID]
  -u      user half only (below 0x0000800000000000)
  -k      kernel half only
  CR3     root to dump (default: the CPU's $cr3)
  -p PID  that process's page table
Consecutive pages are merged into one line when their virtual and physical
addresses are contiguous and they have the same page size, effective
permissions and software bits (A and D are ignored). Columns: virtual range,
size, first physical address, page size, permissions (r w x, user/kernel,
G = global) and software bits. Ends with the count of page-table pages."""

    NAME = "pg-ptdump"

    def run(self, args):
        lo, hi = 0, 1 << 64
        if args and args[0] in ("-u", "-k"):
            lo, hi = (0, 1 << 47) if args[0] == "-u" else (0xffff800000000000, 1 << 64)
            args = args[1:]
        cr3 = cr3_arg(args, 0)
        tables = {}   # level -> set of table pages (one page may be linked twice)

        def count_table(level, pa, path):
            tables.setdefault(level, set()).add(pa)

        out("CR3 %#x (PML4 at PA %#x)" % (cr3, table_of(cr3)))
        out("  %-37s %9s  %-14s %4s  %-16s %s" % ("virtual range", "size", "physical", "page",
                                                  "perms", "sw bits"))
        run, mapped = None, 0
        for leaf in leaves(cr3, lo, hi, count_table):
            mapped += leaf.size
            key = self.key(leaf)
            if run and run[3] == key and run[0] + run[1] == leaf.va and run[2] + run[1] == leaf.pa:
                run[1] += leaf.size
                continue
            if run:
                self.print_run(run)
            run = [leaf.va, leaf.size, leaf.pa, key]
        if run:
            self.print_run(run)
        counts = ", ".join("%d %s" % (len(tables[l]), LEVEL_NAMES[l]) for l in sorted(tables, reverse=True))
        out("%s mapped; page-table pages below the PML4: %s" % (human_size(mapped), counts or "none"))

    @staticmethod
    def key(leaf):
        """What must match for two neighbouring pages to share a line."""
        e = leaf.path[-1]
        sw = " ".join(name for mask, name in pte.software_bits() if e & mask)
        return (leaf.size, perms(leaf.path) + (" G" if e & pte.G else ""), sw)

    @staticmethod
    def print_run(run):
        va, size, pa, (page, perm, sw) = run
        out("  %#018x-%#018x %9s  %#-14x %4s  %-16s %s" % (
            va, va + size - 1, human_size(size), pa, human_size(page).replace(" ", ""), perm, sw))


PgWalk()
PgPtdump()
