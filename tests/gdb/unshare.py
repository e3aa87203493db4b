"""tests/gdb/unshare.py -- gdb batch test: the first write through a shared
page-table page, stopped in pt_unshare (usertests under ptshare=fork, whose
fork tests write to large anonymous regions; tests/scripts.txt).

At pt_unshare's entry, for the faulting address va, checks that:
  * the PT page is shared: its share count equals the number of processes
    whose PD entry points at it (found by walking every address space), at
    least 2, and none of those PD entries has W;
and after `finish`:
  * the writer's PD entry points at a new PT page: share count 1, W set, the
    same present count;
  * the entry for va, writable before (behind the write-protected PD entry),
    is now read-only and COW in the copy: the page itself is copied by the
    ordinary COW fault that follows;
  * every other sharer still points at the old PT page, whose share count
    is unchanged: the writer's share waits on its stale list (a sibling
    thread's look-up may still be reading the old page; mm/pt/pgtable.h);
and after pgt_release_stale for the writer's page table (the fault's
as_unlock_read):
  * the old PT page's share count dropped by one;
  * pg-walk shows the new PT page with share count 1;
  * in every process the PT present counts add up to its present entries.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdb  # noqa: E402
import gdbtest as t  # noqa: E402
from pagoda import headers, proc, pte  # noqa: E402

COW = headers.require(pte.PTE_HEADER, "PTE_COW")


def spaces():
    """{pid: cr3} of every process with a user address space."""
    return {int(p["pid"]): proc.address_space_cr3(p) for p in proc.processes()
            if proc.address_space_cr3(p) is not None}


def stop_in_for(func, cond):
    """Run until func is entered with cond true (the first stop_in above
    has set up everything a hardware breakpoint needs)."""
    bp = gdb.Breakpoint(func, type=gdb.BP_HARDWARE_BREAKPOINT, temporary=True)
    bp.condition = cond
    gdb.execute("continue", to_string=True)
    t.check(t.here()[0] == func, "stopped in %s if %s" % (func, cond))
    if bp.is_valid():
        bp.delete()


def body():
    t.stop_in("pt_unshare")
    va = t.value("va")
    pgt = t.value("pgt")
    me = int(proc.current_process()["pid"])
    others = {pid: cr3 for pid, cr3 in spaces().items() if pid != me}
    before = t.pt_info(va)
    sharers = [pid for pid, cr3 in others.items() if t.pt_info(va, cr3)["pt"] == before["pt"]]
    t.check(before["share"] >= 2 and before["share"] == 1 + len(sharers),
            "PT page %#x: share count %d = pid %d + sharers %s"
            % (before["pt"], before["share"], me, sharers))
    t.check(not any(t.pt_info(va, cr3)["pde"] & pte.W for cr3 in
                    [others[p] for p in sharers] + [None]),
            "no sharer's PD entry has W")
    t.run("finish")
    after = t.pt_info(va)
    t.check(after["pt"] != before["pt"] and after["share"] == 1 and after["pde"] & pte.W,
            "pid %d now has its own PT page %#x (share 1, PD entry W)" % (me, after["pt"] or 0))
    t.check(after["present"] == before["present"],
            "the copy has the same present count (%d)" % before["present"])
    if before["pte"] & pte.W:
        t.check(after["pte"] & COW and not after["pte"] & pte.W,
                "the private writable entry became read-only COW in the copy (%#x)" % after["pte"])
    for pid in sharers:
        info = t.pt_info(va, others[pid])
        t.check(info["pt"] == before["pt"] and info["share"] == before["share"],
                "pid %d keeps PT page %#x, share count still %d (the writer's on its stale list)"
                % (pid, before["pt"], info["share"]))
    stop_in_for("pgt_release_stale", "pgt == %#x" % pgt)
    t.run("finish")
    for pid in sharers:
        info = t.pt_info(va, others[pid])
        t.check(info["pt"] == before["pt"] and info["share"] == before["share"] - 1,
                "pid %d keeps PT page %#x, share count now %d" % (pid, before["pt"], info["share"]))
    out = t.run("pg-walk %#x" % va)
    t.check(re.search(r"PT page %#x: share count 1," % after["pt"], out) is not None,
            "pg-walk shows the new PT page with share count 1", out)
    for pid, cr3 in spaces().items():
        use = proc.memory_usage(cr3)
        t.check(use["rss"] == use["rss_counts"],
                "pid %d: PT present counts add up to its present entries" % pid, str(use))


t.scenario(body)
