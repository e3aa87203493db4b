"""pagoda.cpus -- pg-cpus: every CPU, what it runs, its CR3, and whether a
TLB shootdown (or another cross-CPU call) waits for it.

QEMU's gdbstub shows each guest CPU as a thread (thread N = CPU index
N - 1 = APIC id N - 1 with QEMU's default topology); the CR3 column is read
from that thread's registers, the published one from struct cpu.cr3, which
other CPUs' shootdowns consult (docs/smp-and-locking.md).
"""
import gdb

from . import names as N
from .core import Command, PagodaError, out, symbol_value


def thread_cr3s():
    """{APIC id: CR3} from every gdb thread (one per guest CPU)."""
    inf = gdb.selected_inferior()
    here = gdb.selected_thread()
    cr3 = {}
    try:
        for th in sorted(inf.threads(), key=lambda t: t.num):
            th.switch()
            cr3[th.num - 1] = int(gdb.parse_and_eval("$cr3"))
    finally:
        if here is not None:
            here.switch()
    return cr3


def pending_call():
    """(mask of CPUs yet to answer, is it a shootdown?)"""
    mask = int(symbol_value(N.IPI_PENDING, N.PROVIDER_SMP))
    fn = symbol_value(N.IPI_FN, N.PROVIDER_SMP)
    is_sd = False
    if int(fn):
        block = gdb.block_for_pc(int(fn))
        is_sd = block is not None and block.function is not None and \
            block.function.name == N.SHOOTDOWN_FN
    return mask, is_sd


def describe_current(p):
    if not int(p):
        return "idle"
    return "pid %d (%s)" % (int(p["pid"]), p["name"].string())


class PgCpus(Command):
    """List the CPUs: APIC id, state, current process, CR3, pending shootdown.

Usage: pg-cpus
One line per CPU of cpus[0..ncpus): its id and APIC id, online or not, the
process it runs (or idle), CR3 as the CPU's registers hold it and as it
published it for shootdowns (they differ only while it switches), its APIC
timer ticks and cross-CPU calls answered, and "shootdown pending" (or "call
pending") while a TLB shootdown round waits for its acknowledgement."""

    NAME = "pg-cpus"

    def run(self, args):
        if args:
            self.usage_error()
        cpus = symbol_value(N.CPUS, N.PROVIDER_SMP)
        n = int(symbol_value(N.NCPUS, N.PROVIDER_SMP))
        if n < 1:
            raise PagodaError("ncpus is %d: stop after percpu_init" % n)
        regs = thread_cr3s()
        mask, is_sd = pending_call()
        for i in range(n):
            c = cpus[i]
            apic = int(c["apic_id"])
            hw = regs.get(apic)
            wait = "-"
            if mask & (1 << i):
                wait = "shootdown pending" if is_sd else "call pending"
            out("CPU %d  APIC %-2d %-7s %-22s CR3 %s  published %#x  ticks %d  calls %d  %s"
                % (i, apic, "online" if bool(c["online"]) else "offline",
                   describe_current(c[N.CPU_CURRENT]),
                   "%#x" % hw if hw is not None else "?", int(c[N.CPU_CR3]),
                   int(c["lapic_ticks"]), int(c["ipi_calls"]), wait))
        out("%d CPU(s), %d thread(s) in gdb" % (n, len(regs)))


PgCpus()
