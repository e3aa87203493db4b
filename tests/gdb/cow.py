"""tests/gdb/cow.py -- gdb batch test: fork, then the first write to a page
the child shares with its parent (the kernel boots to init, which forks the
shell). Run with PT-level sharing (ptshare=all; the default pd shares the
PD page above, a picture of its own) and with
ptshare=off (classic fork); tests/scripts.txt.

Checks that:
  * after proc_fork returns, pg-ps lists parent and child with different
    PML4s, and pg-vmas shows the child with the parent's VMAs; pg-vmas's
    lines are the kernel's VMA list (text at USER_TEXT_BASE r-x from the
    file, the stack ending at USER_TOP) and their resident sizes add up to
    the pages mapped; pg-walk -p and pg-ptdump -u -p walk the child's page
    table, not the one in CR3;
  * ptshare=off (classic fork): at the first write fault on a page present
    in the faulting process, both processes map it to the SAME frame,
    read-only and COW; after the fault handler returns (`finish`) the writer
    maps a NEW frame, writable, and the other still maps the old one; pg-bt
    in the fault handler crosses the user page fault's trap frame;
  * shared page tables (ptshare=fork|all): right after fork, parent and
    child point at the same PT pages, each with a share count of at least 2
    and write-protected PD entries in both. (init's fork + exec writes no
    shared 2 MiB range; tests/gdb/unshare.py follows pt_unshare itself.)
  * in both processes the PT pages' present counts add up to the present
    entries really in the page tables (the kernel's RSS is built on them).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import frames, headers, layout, paging, proc, pte  # noqa: E402

PAGE = 4096
COW = headers.require(pte.PTE_HEADER, "PTE_COW")
MAX_FAULTS = 50


def fork():
    """Stop in proc_fork, let it return; (parent, child) as (pid, cr3)."""
    t.stop_in("proc_fork")
    parent = proc.current_process()
    t.check(parent is not None, "proc_fork runs in a process whose page table is in CR3")
    t.run("finish")
    pids = {int(p["pid"]): proc.address_space_cr3(p) for p in proc.processes()}
    child_pid = t.value("$rax")
    ppid = int(parent["pid"])
    t.check(child_pid in pids and child_pid != ppid, "fork returned the child's pid (%d)" % child_pid)
    t.check(pids.get(child_pid) not in (None, pids[ppid]), "the child has its own PML4")
    out = t.run("pg-ps")
    t.check(re.search(r"^\*\s*%d " % ppid, out, re.M) is not None and
            re.search(r"^\s+%d " % child_pid, out, re.M) is not None,
            "pg-ps lists both, the parent's address space loaded (*)", out)
    vmas = [re.sub(r"\s+\S+$", "", l) for l in t.run("pg-vmas %d" % ppid).splitlines()[2:-1]]
    child_vmas = [re.sub(r"\s+\S+$", "", l) for l in t.run("pg-vmas %d" % child_pid).splitlines()[2:-1]]
    t.check(vmas and vmas == child_vmas, "the child has the parent's VMAs", "%s\n%s" % (vmas, child_vmas))
    vma_lines(ppid, pids[ppid])
    other_process(child_pid, pids[child_pid])
    return (ppid, pids[ppid]), (child_pid, pids[child_pid])


VMA_LINE = re.compile(r"^  (0x[0-9a-f]+)-(0x[0-9a-f]+)\s+(\S+ \S+)\s+([r-][w-][x-])\s+(\S+(?: @0x[0-9a-f]+)?)\s+(.*)$")


def size_bytes(text):
    """'80 KiB' / '8 MiB' / '1.5 MiB' / '0' (core.human_size's output: exact
    for whole units, one decimal otherwise)."""
    n, _, unit = text.partition(" ")
    return round(float(n) * (1 << {"": 0, "B": 0, "KiB": 10, "MiB": 20, "GiB": 30}[unit]))


def vma_lines(pid, cr3):
    """pg-vmas PID against the kernel's VMA list and the page tables."""
    out = t.run("pg-vmas %d" % pid)
    rows = [m for m in map(VMA_LINE.match, out.splitlines()) if m]
    aspace = proc.find_process(pid)["as"].dereference()
    kernel, v = [], aspace["vmas"]
    while int(v):
        kernel.append((int(v["start"]), int(v["end"])))
        v = v["next"]
    t.check([(int(m.group(1), 16), int(m.group(2), 16) + 1) for m in rows] == kernel
            and all(size_bytes(m.group(3)) == int(m.group(2), 16) + 1 - int(m.group(1), 16) for m in rows),
            "pg-vmas %d: one line per VMA of the kernel's list, with its size" % pid, out)
    text = rows[0] if rows else None
    t.check(text is not None and int(text.group(1), 16) == layout.const("USER_TEXT_BASE")
            and text.group(4) == "r-x" and text.group(5).startswith("file @"),
            "the first VMA is the program text: r-x, from the file", out)
    t.check(rows and int(rows[-1].group(2), 16) + 1 == layout.const("USER_TOP")
            and rows[-1].group(4) == "rw-", "the last VMA is the stack, rw-, ending at USER_TOP", out)
    t.check(sum(size_bytes(m.group(6)) for m in rows) == proc.memory_usage(cr3)["rss"],
            "the VMAs' resident sizes add up to the pages mapped", out)
    t.check(re.search(r"^  heap \[%#x, %#x\)$" % (int(aspace["heap_start"]), int(aspace["brk"])), out, re.M)
            is not None, "pg-vmas ends with the brk area", out)


def other_process(pid, cr3):
    """pg-walk -p and pg-ptdump -u -p read pid's page table, not CR3's."""
    t.check(cr3 != layout.read_cr3() & ~0xfff, "pid %d's page table is not the one in CR3" % pid)
    va = layout.const("USER_TEXT_BASE")
    out = t.run("pg-walk %#x -p %d" % (va, pid))
    pa = paging.translate(cr3, va)
    t.check(re.search(r"CR3 %#x$" % cr3, out.splitlines()[0]) is not None and pa is not None
            and "=> PA %#x in a 4 KiB page, r-x user" % pa in out,
            "pg-walk %#x -p %d: walks from its PML4 to its text frame %#x" % (va, pid, pa or 0), out)
    out = t.run("pg-ptdump -u -p %d" % pid)
    rss = proc.memory_usage(cr3)["rss"]
    lines = re.findall(r"^  0x[0-9a-f]+-0x[0-9a-f]+\s+(\S+ \S+)\s", out, re.M)
    t.check(out.startswith("CR3 %#x" % cr3) and sum(map(size_bytes, lines)) == rss
            and re.search(r"^%d KiB mapped;" % (rss // 1024), out, re.M) is not None,
            "pg-ptdump -u -p %d: its ranges add up to its %d KiB mapped" % (pid, rss // 1024), out)


def next_cow_fault():
    """Continue to the next write fault on a present page; its page address."""
    bp = t.gdb.Breakpoint("as_fault", type=t.gdb.BP_HARDWARE_BREAKPOINT)
    bp.condition = "(flags & 1) != 0"   # FAULT_WRITE
    try:
        for _ in range(MAX_FAULTS):
            t.gdb.execute("continue", to_string=True)
            va = t.value("va") & ~(PAGE - 1)
            if (t.pt_info(va)["pte"] or 0) & pte.P:
                return va
        return None
    finally:
        bp.delete()


def writable(info):
    """Can user code write through this mapping (PD and PT entry both W)?"""
    return bool(info["pde"] & pte.W and info["pte"] & pte.W)


def pt_pages(cr3):
    """{PT page PA: PD entry pointing at it} for the user half of cr3."""
    found = {}

    def on_table(level, pa, path):
        if level == pte.PT:
            found[pa] = path[-1]
    for _ in paging.leaves(cr3, 0, proc.USER_END, on_table):
        pass
    return found


def shared_after_fork(parent, child):
    """Shared page tables: right after fork, parent and child point at the
    same PT pages, with a share count above 1 and write-protected PD entries."""
    mine, theirs = pt_pages(parent[1]), pt_pages(child[1])
    common = sorted(set(mine) & set(theirs))
    t.check(common, "parent and child point at %d common PT page(s)" % len(common))
    for pa in common:
        share = frames.pt_counts(pa)[0]
        t.check(share >= 2 and not mine[pa] & pte.W and not theirs[pa] & pte.W,
                "PT page %#x: share count %d, both PD entries without W" % (pa, share))
    accounting(parent, child)


def accounting(parent, child):
    for pid, cr3 in (parent, child):
        use = proc.memory_usage(cr3)
        t.check(use["rss"] == use["rss_counts"] > 0,
                "pid %d: PT present counts add up to its present entries (%d KiB)"
                % (pid, use["rss"] // 1024), str(use))
    t.check("warning" not in t.run("pg-ps"), "pg-ps finds no accounting mismatch")


def cow_fault(parent, child):
    """Classic fork: the first write to a page both processes map."""
    va = next_cow_fault()
    if not t.check(va is not None, "a write fault on a present page happens"):
        return
    me = proc.current_process()
    mine = int(me["pid"])
    t.check(mine in (parent[0], child[0]), "the fault is in the parent or the child (pid %d)" % mine)
    other_cr3 = child[1] if mine == parent[0] else parent[1]
    before, other = t.pt_info(va), t.pt_info(va, other_cr3)
    frame = pte.frame_addr(before["pte"], pte.PT)
    t.check(frame == pte.frame_addr(other["pte"] or 0, pte.PT),
            "before the write, both processes map %#x to the same frame %#x" % (va, frame))
    t.check(not writable(before) and not writable(other) and before["pte"] & COW
            and other["pte"] & COW, "... read-only and marked COW in both")
    out = t.run("pg-bt")
    t.check(re.search(r"page fault \(vector 14, error 0x[0-9a-f]*[2367ef]\) from user mode", out)
            is not None, "pg-bt crosses the user write fault's trap frame", out)
    t.run("finish")
    after, other_after = t.pt_info(va), t.pt_info(va, other_cr3)
    new = pte.frame_addr(after["pte"] or 0, pte.PT)
    t.check(writable(after) and new != frame,
            "after the fault, the writer maps a new frame %#x, writable" % new)
    t.check(pte.frame_addr(other_after["pte"] or 0, pte.PT) == frame,
            "the other process still maps the old frame")
    accounting(parent, child)


def body():
    parent, child = fork()
    mode = re.search(r"ptshare=(\w+)", t.gdb.parse_and_eval("boot_info.cmdline").string())
    sharing = (mode.group(1) if mode else "all") != "off"      # kernel default: all
    if sharing:
        shared_after_fork(parent, child)
    else:
        cow_fault(parent, child)


t.scenario(body)
