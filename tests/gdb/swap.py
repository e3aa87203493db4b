"""tests/gdb/swap.py -- gdb batch test: a page out on swap as the helpers show
it (memtouch over a swap disk with 48 MiB of RAM: every page written, then
read back; tests/scripts.txt).

Checks that:
  * when a fault brings a page back (swap_in), the entry it found is a swap
    entry: not present, not PROT_NONE, PTE_SWAP set (pagoda.pte.is_swap),
    naming area 0 (the only one) and a slot inside the disk;
  * pg-walk of that address decodes it ("swap: area 0, slot N") and ends
    with "=> swapped out: area 0, slot N" and the slot's bytes on the disk;
  * after swap_in returns, the same address maps a frame again (pg-walk's
    "=> PA ..."), and pg-ps finds no accounting mismatch.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import pte  # noqa: E402

PAGE = 4096
DISK_PAGES = 64 * 1024 * 1024 // PAGE   # the --disk 64M:swap of tests/scripts.txt


def body():
    t.stop_in("swap_in")
    va = t.value("va") & ~(PAGE - 1)
    e = t.value("e") & 0xffffffffffffffff
    t.check(pte.is_swap(e, pte.PT), "swap_in's entry is a swap entry", "%#x" % e)
    slot = pte.swap_slot(e)
    t.check(pte.swap_area(e) == 0 and 0 < slot < DISK_PAGES,
            "it names area 0 and a slot of the disk", "area %d slot %d" % (pte.swap_area(e), slot))
    out = t.run("pg-walk %#x" % va)
    t.check(re.search(r"swap: area 0, slot %d\b" % slot, out) is not None and
            re.search(r"=> swapped out: area 0, slot %d \(bytes %#x\.\." % (slot, slot * PAGE), out)
            is not None, "pg-walk decodes the swap entry", out)
    t.run("finish")
    out = t.run("pg-walk %#x" % va)
    t.check(re.search(r"=> PA 0x[0-9a-f]+ in a 4 KiB page", out) is not None,
            "after swap_in the address maps a frame again", out)
    t.check("warning" not in t.run("pg-ps"), "pg-ps finds no accounting mismatch")


t.scenario(body)
