"""pagoda.syms -- what is at an address (pg-syms) and a frame-pointer
backtrace that crosses trap frames (pg-bt)."""
import re
import struct

import gdb

from . import headers
from . import names as N
from .core import Command, PagodaError, lookup_type, out, symbol_value, to_int
from .layout import const, read_virt, region_of

TRAP_HEADER = "arch/x86_64/trap.h"


def elf_symbol(addr):
    """(name, offset) of the ELF symbol containing addr, or None. The ELF
    symbol table names the real (out-of-line) function even where the debug
    information says the code belongs to an inlined callee."""
    if not 0 <= addr < 1 << 64:
        return None
    # search, not match: with `set trace-commands on` the captured text
    # starts with the echoed "+info symbol ..." line.
    m = re.search(r"^(\S+)(?: \+ (\d+))? in section", gdb.execute("info symbol %#x" % addr,
                                                                   to_string=True), re.M)
    return (m.group(1), int(m.group(2) or 0)) if m else None


def symbolize(addr):
    """'func+0x12 (file.c:34)' for a code address, '' if gdb knows nothing."""
    sym = elf_symbol(addr)
    if sym is None:
        return ""
    text = "%s+%#x" % sym
    sal = gdb.find_pc_line(addr)
    if sal.symtab is not None and sal.line:
        text += " (%s:%d)" % (sal.symtab.filename, sal.line)
    return text


def trap_name(vector, tf=None):
    """'page fault', 'IRQ 0', 'system call 57': the exception names come from
    the kernel's own table (trap.c), the numbers from trap.h."""
    defs = headers.defines(TRAP_HEADER)
    if vector == defs.get("T_SYSCALL"):
        return "system call" + (" %d" % int(tf["rax"]) if tf is not None else "")
    if defs.get("T_IRQ0", 1 << 64) <= vector < defs.get("T_NVEC", 256):
        return "IRQ %d" % (vector - defs["T_IRQ0"])
    try:
        names = symbol_value(N.EXC_NAMES, "arch/x86_64/trap.c")
        if vector <= names.type.range()[1] and int(names[vector]) != 0:
            return names[vector].string()
    except (PagodaError, gdb.error):
        pass
    return "vector %d" % vector


def is_trap_entry(ret):
    """Is ret a return address into the assembly entry code?"""
    sym = elf_symbol(ret - 1)
    return sym is not None and sym[0].split(".")[0] in N.TRAP_ENTRY_SYMBOLS


class PgSyms(Command):
    """Say what an address is: symbol, source line and memory-map area.

Usage: pg-syms ADDR...
  ADDR  any expression: 0xffffffff80108e13, $pc, tf->rip
For each address prints the function (or object) plus offset and the source
line from the debug information, the memory-map area it lies in (user,
direct map, kernel stacks, kernel image; from arch/x86_64/memlayout.h) and,
for the linearly mapped areas, the physical address."""

    NAME = "pg-syms"

    def run(self, args):
        if not args:
            self.usage_error()
        for a in args:
            addr = to_int(a)
            area, pa = region_of(addr)
            where = area + ("" if pa is None else ", PA %#x" % pa)
            out("%#018x  %-40s [%s]" % (addr, symbolize(addr) or "(no symbol)", where))


class PgBt(Command):
    """Backtrace by frame pointers, continuing through trap frames.

Usage: pg-bt [TRAPFRAME]
  (none)      start from the current $pc and $rbp
  TRAPFRAME   a struct trapframe pointer (e.g. tf in trap_dispatch), start
              from the registers the trap saved
Follows the kernel's frame-pointer chain ([rbp] = caller's rbp, [rbp+8] =
return address) like the kernel's own panic backtrace. When a return
address is in the assembly entry code (entry.asm, syscall.asm), the frame
below it is a trap frame (an exception, an interrupt or a system call): pg-bt prints the trap (vector, name, error code, saved RIP) and goes
on with the interrupted code's registers -- which gdb's `bt` cannot do, since
the assembly entry stubs carry no unwind information."""

    NAME = "pg-bt"
    MAX_FRAMES = 64

    def run(self, args):
        if args:
            tf = self.trapframe(to_int(" ".join(args)))     # spaces allowed
            self.print_trap(tf)
            if (int(tf["cs"]) & 3) == 3:
                return
            pc, rbp, rsp = int(tf["rip"]), int(tf["rbp"]), int(tf["rsp"])
        else:
            pc, rbp, rsp = to_int("$pc"), to_int("$rbp"), to_int("$rsp")
        self.walk(pc, rbp, rsp)

    @staticmethod
    def trapframe(addr):
        """The struct trapframe at addr, checked for plausibility."""
        t = lookup_type(N.TRAPFRAME_STRUCT, TRAP_HEADER)
        tf = gdb.Value(addr).cast(t.pointer()).dereference()
        max_vector = max(255, headers.defines(TRAP_HEADER).get("T_SYSCALL", 0))
        if addr < const("DIRECT_MAP_BASE") or addr % 8 or int(tf["vector"]) > max_vector:
            raise PagodaError("%#x does not look like a trap frame (kernel stack address, "
                              "known vector)" % addr)
        return tf

    @staticmethod
    def print_trap(tf):
        vec = int(tf["vector"])
        user = (int(tf["cs"]) & 3) == 3
        out("--- trap frame at %#x: %s (vector %d, error %#x) from %s mode ---"
            % (int(tf.address), trap_name(vec, tf), vec, int(tf["error"]), "user" if user else "kernel"))
        out("    rip %#x  rsp %#x  rbp %#x  rflags %#x"
            % (int(tf["rip"]), int(tf["rsp"]), int(tf["rbp"]), int(tf["rflags"])))
        if user:
            out("    user rip: %s" % (symbolize(int(tf["rip"])) or "(no user symbols: make debug USER=prog)"))

    def walk(self, pc, rbp, rsp):
        """Print frames from pc up the rbp chain, crossing trap frames."""
        n = 0
        out("#%-2d %#018x  %s" % (n, pc, symbolize(pc)))
        n = self.caller_in_prologue(n, pc, rsp)
        while n < self.MAX_FRAMES:
            if rbp == 0 or rbp % 8:
                return
            try:
                saved_rbp, ret = struct.unpack("<QQ", read_virt(rbp, 16))
            except PagodaError as e:
                out("    (stopped: %s)" % e)
                return
            if ret == 0:
                return
            n += 1
            out("#%-2d %#018x  %s" % (n, ret, symbolize(ret - 1)))
            if saved_rbp == 0 and is_trap_entry(ret):   # entry code zeroes rbp
                tf = self.trapframe(rbp + 16)
                self.print_trap(tf)
                if (int(tf["cs"]) & 3) == 3:
                    return
                n += 1
                out("#%-2d %#018x  %s" % (n, int(tf["rip"]), symbolize(int(tf["rip"]))))
                n = self.caller_in_prologue(n, int(tf["rip"]), int(tf["rsp"]))
                saved_rbp = int(tf["rbp"])
            rbp = saved_rbp
        out("    (stopped after %d frames)" % self.MAX_FRAMES)

    @staticmethod
    def caller_in_prologue(n, pc, rsp):
        """Print the caller of a function stopped in its prologue (rbp still
        the caller's); returns the last frame number printed."""
        ret = prologue_return(pc, rsp)
        if ret is None:
            return n
        out("#%-2d %#018x  %s" % (n + 1, ret, symbolize(ret - 1)))
        return n + 1


def prologue_return(pc, rsp):
    """The return address if pc is at the start of a function, before its
    frame is set up (gcc's `push rbp; mov rbp, rsp`), else None. There the
    frame-pointer chain still starts at the caller's frame, so the caller
    would be skipped."""
    sym = elf_symbol(pc)
    if sym is None:
        return None
    start = pc - sym[1]
    first = gdb.selected_inferior().architecture().disassemble(start)[0]
    if pc == start:
        slot = rsp
    elif pc == start + first["length"] and first["asm"].replace("%", "").split() == ["push", "rbp"]:
        slot = rsp + 8
    else:
        return None
    ret = struct.unpack("<Q", read_virt(slot, 8))[0]
    return ret if elf_symbol(ret - 1) else None


PgSyms()
PgBt()
