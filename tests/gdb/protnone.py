"""tests/gdb/protnone.py -- gdb batch test: a PROT_NONE page as the helpers
show it (usertests efault_prot_none: a page written, made PROT_NONE, then
handed to write(); tests/scripts.txt).

Checks that:
  * when the kernel's copy from that page faults (as_fault, a read), its
    leaf entry is not present and has PTE_PROTNONE, and still holds the
    frame (pagoda.pte.is_protnone, pagoda.pte.is_mapped);
  * pg-walk names it: the entry decodes as "not present: ... PROTNONE" and
    the last line says PROT_NONE with the frame it keeps;
  * as_fault returns FAULT_BAD_ACCESS for it (the system call gets EFAULT);
  * pg-ps finds no accounting mismatch: the PT pages' present counts (the
    kernel's RSS) and the helpers' walk both count the PROT_NONE entry.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import pte  # noqa: E402

PAGE = 4096
MAX_FAULTS = 400


def next_protnone_fault():
    """Continue to the next read fault on a PROT_NONE entry; its page address."""
    bp = t.gdb.Breakpoint("as_fault", type=t.gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "(flags & 1) == 0"   # not FAULT_WRITE: a read
    try:
        for _ in range(MAX_FAULTS):
            t.gdb.execute("continue", to_string=True)
            va = t.value("va") & ~(PAGE - 1)
            if pte.is_protnone(t.pt_info(va)["pte"] or 0, pte.PT):
                return va
        return None
    finally:
        bp.delete()


def body():
    va = next_protnone_fault()
    if not t.check(va is not None, "the kernel faults on a PROT_NONE entry"):
        return
    e = t.pt_info(va)["pte"]
    t.check(not e & pte.P and pte.is_mapped(e) and pte.frame_addr(e, pte.PT) != 0,
            "the entry is not present but keeps its frame", "%#x" % e)
    out = t.run("pg-walk %#x" % va)
    t.check(re.search(r"not present: .*PROTNONE", out) is not None and
            re.search(r"=> PROT_NONE: frame at PA %#x kept" % pte.frame_addr(e, pte.PT), out)
            is not None, "pg-walk decodes it as PROT_NONE with its frame", out)
    t.run("finish")
    t.check(t.value("$") == t.value("FAULT_BAD_ACCESS"),
            "as_fault refuses it: FAULT_BAD_ACCESS (the value finish printed)")
    t.check("warning" not in t.run("pg-ps"), "pg-ps finds no accounting mismatch")


t.scenario(body)
