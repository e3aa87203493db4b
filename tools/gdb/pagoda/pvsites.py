"""pagoda.pvsites -- pg-pvsites: the pv_ops call sites and what they became.

Every pv_ops call site is recorded in the .pvsites section (linker.ld:
_pvsites_start.._pvsites_end) as a struct pv_site. This command does not
depend on the record's field names: the field holding an address inside the
kernel text is taken as the site, and the instructions now at that address
(after boot-time patching) are disassembled.
"""
import gdb

from . import names as N
from .core import Command, PagodaError, lookup_type, out, symbol_address
from .syms import symbolize


def text_range():
    lo, hi = symbol_address("_text_start"), symbol_address("_text_end")
    if lo is None or hi is None:
        raise PagodaError("_text_start/_text_end not found (linker.ld)")
    return lo, hi


def site_address(rec, lo, hi):
    """The first field of a pv_site record that points into kernel text."""
    for f in rec.type.strip_typedefs().fields():
        try:
            v = int(rec[f.name].cast(gdb.lookup_type("unsigned long")))
        except gdb.error:
            continue
        if lo <= v < hi:
            return v
    return None


def current_code(addr):
    """The (patched) instruction at addr, as gdb disassembles it now."""
    insn = gdb.selected_inferior().architecture().disassemble(addr, count=1)[0]
    return insn["asm"]


class PgPvsites(Command):
    """Show which pv_ops call sites were patched, and to what.

Usage: pg-pvsites [MAX]
For each record of the .pvsites section (struct pv_site, written at every
pv_ops call site), prints the site's address and function, the record's
fields, and the instruction now at the site -- after boot-time patching a
direct call, an inline native instruction (cli, sti, mov to CR3, invlpg ...)
or, unpatched, the original indirect call. Stop after boot (e.g. at the
first user process) to see the patched code."""

    NAME = "pg-pvsites"

    def run(self, args):
        if len(args) > 1:
            self.usage_error()
        limit = int(args[0], 0) if args else 1000
        site_t = lookup_type(N.PVSITE_STRUCT, N.PROVIDER_PV)
        start, end = symbol_address(N.PVSITES_START), symbol_address(N.PVSITES_END)
        if start is None or end is None:
            raise PagodaError("no .pvsites section bounds (%s, %s)" % (N.PVSITES_START, N.PVSITES_END))
        lo, hi = text_range()
        n = (end - start) // site_t.sizeof
        out("%d pv_ops call sites in .pvsites [%#x, %#x)" % (n, start, end))
        for i in range(min(n, limit)):
            rec = gdb.Value(start + i * site_t.sizeof).cast(site_t.pointer()).dereference()
            site = site_address(rec, lo, hi)
            fields = " ".join("%s=%s" % (f.name, rec[f.name].format_string(symbols=False))
                              for f in site_t.fields())
            if site is None:
                out("  [%d] %s (no address in kernel text)" % (i, fields))
            else:
                out("  %#x %-36s now: %-28s {%s}" % (site, symbolize(site), current_code(site), fields))


PgPvsites()
