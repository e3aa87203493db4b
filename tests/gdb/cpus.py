"""tests/gdb/cpus.py -- gdb batch test of pg-cpus on two CPUs (QEMU -smp 2:
two gdb threads), booted with test=smp smp_expect=2.

  * at ktest_run_selected (every CPU up): one line per CPU, both online,
    APIC ids 0 and 1, CPU 1 idle, each CPU's CR3 register equal to the CR3 it
    published, no call pending, and "2 CPU(s), 2 thread(s) in gdb";
  * stopped in flush_here on the AP (the first TLB shootdown that reaches
    it, before it acknowledges): pg-cpus says "shootdown pending" for
    exactly that CPU.
"""
import os
import re
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402

LINE = re.compile(r"^CPU (\d+)  APIC (\d+)\s+(\S+)\s+(.+?)\s+CR3 (\S+)  published (\S+)  "
                  r"ticks \d+  calls \d+  (.*)$")


def lines(out):
    return [m.groups() for m in map(LINE.match, out.splitlines()) if m]


def body():
    t.stop_in("ktest_run_selected")
    out = t.run("pg-cpus")
    cpus = lines(out)
    t.check(len(cpus) == 2, "pg-cpus: one line per CPU", out)
    t.check([c[1] for c in cpus] == ["0", "1"] and all(c[2] == "online" for c in cpus),
            "both CPUs online with APIC ids 0 and 1", out)
    t.check(len(cpus) == 2 and cpus[1][3] == "idle", "the AP is idle", out)
    t.check(all(int(c[4], 16) & ~0xfff == int(c[5], 16) for c in cpus),
            "each CPU's CR3 register is the CR3 it published", out)
    t.check(all(c[6] == "-" for c in cpus), "no call pending", out)
    t.check("2 CPU(s), 2 thread(s) in gdb" in out, "gdb has a thread per CPU", out)

    bp = gdb.Breakpoint("flush_here", type=gdb.BP_HARDWARE_BREAKPOINT, temporary=True)
    gdb.execute("continue", to_string=True)
    name, _ = t.here()
    t.check(name == "flush_here", "stopped in flush_here (a shootdown's target)", str(name))
    me = gdb.selected_thread().num - 1
    out = t.run("pg-cpus")
    print(out)   # the log shows it (docs/debugging.md quotes it)
    cpus = lines(out)
    pending = [c[0] for c in cpus if c[6] == "shootdown pending"]
    t.check(pending == [str(me)] and me != 0,
            "pg-cpus: the AP in flush_here has a shootdown pending, and only it", out)
    if bp.is_valid():
        bp.delete()


t.scenario(body)
