"""pagoda.pvsites -- pg-pvsites: the pv_ops call sites and what they became.

Every pv_ops call site is recorded in the .pvsites section (linker.ld:
_pvsites_start.._pvsites_end) as a struct pv_site {addr, len, slot, ...}.
At boot the patcher rewrites each site in place; this command disassembles
the site's bytes as they are NOW and says which of the three forms it has:
the original indirect call through pv_ops, a direct call to a backend
function, or native instructions inline.
"""
import re

import gdb

from . import names as N
from .core import Command, PagodaError, lookup_type, out, symbol_address
from .syms import elf_symbol, symbolize


def slot_names():
    """Names of the pv_ops slots in order ('cpu.load_gdt', 'mmu.write_cr3'...):
    struct pv_ops flattened, one slot per 8-byte member."""
    names = {}

    def flatten(t, prefix, base):
        for f in t.strip_typedefs().fields():
            off = base + f.bitpos // 8
            if f.type.strip_typedefs().code == gdb.TYPE_CODE_STRUCT:
                flatten(f.type, prefix + f.name + ".", off)
            else:
                names[off // 8] = prefix + f.name
    flatten(lookup_type(N.PV_OPS_STRUCT, N.PROVIDER_PV), "", 0)
    return names


def site_code(addr, length):
    """The instructions now in [addr, addr + length), as a list of text."""
    arch = gdb.selected_inferior().architecture()
    insns, at = [], addr
    while at < addr + length:
        insn = arch.disassemble(at)[0]
        insns.append(" ".join(insn["asm"].split()))
        at += insn["length"]
    return insns


def classify(insns):
    """'indirect', 'direct -> fn' or 'inline' for a site's instructions."""
    calls = [i for i in insns if i.startswith("call")]
    if not calls:
        return "inline"
    m = re.match(r"call\s+(0x[0-9a-f]+)", calls[0])
    if m:
        sym = elf_symbol(int(m.group(1), 16))
        return "direct -> %s" % (sym[0] if sym else m.group(1))
    return "indirect"


class PgPvsites(Command):
    """Show which pv_ops call sites were patched, and to what.

Usage: pg-pvsites [-a] [MAX]
For each record of the .pvsites section (one per pv_ops call site) prints
the site's address and function, the pv_ops slot it calls (cpu., irq. or
mmu. operation), and the instructions now at the site: still the indirect
call through pv_ops (pv=indirect, or before the patcher ran), a direct call
to the backend's function, or the native instruction(s) inline padded with
NOPs. Ends with a count of each form. Lists the first MAX sites (default 20;
-a: all of them)."""

    NAME = "pg-pvsites"

    def run(self, args):
        show_all = "-a" in args
        args = [a for a in args if a != "-a"]
        if len(args) > 1:
            self.usage_error()
        limit = 1 << 30 if show_all else (int(args[0], 0) if args else 20)
        site_t = lookup_type(N.PVSITE_STRUCT, N.PROVIDER_PV)
        start, end = symbol_address(N.PVSITES_START), symbol_address(N.PVSITES_END)
        if start is None or end is None:
            raise PagodaError("no .pvsites section bounds (%s, %s)" % (N.PVSITES_START, N.PVSITES_END))
        slots = slot_names()
        count = (end - start) // site_t.sizeof
        kinds = {}
        out("%d pv_ops call sites in .pvsites [%#x, %#x)" % (count, start, end))
        for i in range(count):
            rec = gdb.Value(start + i * site_t.sizeof).cast(site_t.pointer()).dereference()
            addr, length, slot = int(rec["addr"]), int(rec["len"]), int(rec["slot"])
            insns = site_code(addr, length)
            kind = classify(insns)
            kinds[kind.split(" ")[0]] = kinds.get(kind.split(" ")[0], 0) + 1
            if i < limit:
                out("  %#x %-34s %-20s %-28s %s" % (addr, symbolize(addr).split(" ")[0],
                                                    slots.get(slot, "slot %d" % slot), kind,
                                                    "; ".join(insns)))
        if count > limit:
            out("  ... %d more (pg-pvsites -a)" % (count - limit))
        out("forms: " + ", ".join("%s %d" % kv for kv in sorted(kinds.items())))


PgPvsites()
