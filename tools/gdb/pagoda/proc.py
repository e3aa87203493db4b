"""pagoda.proc -- processes and their memory: pg-ps, pg-vmas.

RSS and page-table pages are computed here from the page tables themselves
(the same walk as pg-ptdump), so they can be compared with what the kernel's
own accounting says:
  RSS  bytes mapped by present user leaf entries, the shared zero page
       excluded (it is not resident);
  PSS  the same, each page divided by the share count of the PT page that
       maps it and by the number of PT pages mapping its frame (a PT page
       shared by 3 address spaces counts 1/3 to each; a COW frame in two
       private PT pages 1/2 to each), mm/memstat.h's definition;
  PT   page-table pages below the PML4 reachable from the user half, and how
       many of the last-level ones are shared (share count > 1).
"""
from . import headers
from . import names as N
from .core import Command, PagodaError, field, human_size, out, symbol_value, to_int
from .frames import enum_name, frame_db, frame_mappers, pt_counts, pt_swap_count, pt_zero_count, zero_frame
from .layout import read_cr3
from .paging import leaves
from .pte import PT, PD, frame_addr

USER_END = 1 << 47
PAGE_SIZE = 4096


def processes():
    """The used slots of the process table, as gdb.Values of struct proc."""
    table = symbol_value(N.PROC_TABLE, N.PROVIDER_PROC)
    lo, hi = table.type.range()
    unused = N.PROC_UNUSED
    for i in range(lo, hi + 1):
        p = table[i]
        if enum_name(N.PROC_STATE_ENUM, int(p["state"])) != unused:
            yield p


def find_process(pid):
    p = next((p for p in processes() if int(p["pid"]) == pid), None)
    if p is None:
        raise PagodaError("no process with pid %d (pg-ps lists them)" % pid)
    return p


def current_process():
    """The process whose page table is loaded in CR3, or None (kernel-only
    page table). Reading CR3 avoids depending on per-CPU data layout."""
    cr3 = read_cr3() & ~0xfff
    return next((p for p in processes() if address_space_cr3(p) == cr3), None)


def address_space_cr3(proc):
    """Physical address of the process's PML4, or None (kernel thread)."""
    aspace = proc["as"]
    if int(aspace) == 0:
        return None
    return pagetable_cr3(field(aspace.dereference(), N.AS_PGT, "struct addrspace"))


def pagetable_cr3(pgt):
    """Physical address of the PML4 of a struct pagetable pointer."""
    root = field(pgt.dereference(), N.PGT_ROOT, "struct pagetable")
    frames, _ = frame_db()
    return int(root - frames) << 12


def owner_of(pgt):
    """'pid N (name)' of the process whose address space is pgt, or '?'."""
    for p in processes():
        aspace = p["as"]
        if int(aspace) and int(aspace.dereference()[N.AS_PGT]) == int(pgt):
            return "pid %d (%s)" % (int(p["pid"]), p["name"].string())
    return "?"


def memory_usage(cr3):
    """Memory use of the user half of cr3, in bytes unless said otherwise:
      rss         mapped by present leaf entries, the zero page excluded
                  (counted by walking them);
      rss_counts  the same from the PT pages' counts less their zero-page
                  and swap entries (the kernel's way: exact only if every
                  leaf write kept them right);
      pss         rss with each page divided by its PT page's share count
                  and its frame's number of mapping PT pages;
      tables      page-table pages below the PML4; shared_pts: PT pages
                  with a share count above 1."""
    use = {"rss": 0, "rss_counts": 0, "pss": 0.0, "tables": 0, "shared_pts": 0}
    shares, seen = {}, set()
    zero = zero_frame()

    def on_table(level, pa, path):
        if pa in seen:
            return
        seen.add(pa)
        use["tables"] += 1
        if level == PT:
            try:
                share, present, _ = pt_counts(pa)
            except PagodaError:
                share, present = 1, 0
            shares[pa] = max(share, 1)
            use["shared_pts"] += share > 1
            use["rss_counts"] += (present - pt_zero_count(pa) - pt_swap_count(pa)) * PAGE_SIZE

    for leaf in leaves(cr3, 0, USER_END, on_table):
        # path = [PML4E, PDPTE, PDE, PTE] for a 4 KiB page: the PDE holds the PT.
        pt_pa = frame_addr(leaf.path[2], PD) if len(leaf.path) == 4 else None
        frame = leaf.pa if pt_pa is not None else None
        if zero and frame == zero:
            continue
        use["rss"] += leaf.size
        use["pss"] += leaf.size / shares.get(pt_pa, 1) / (frame_mappers(frame) if frame else 1)
        if pt_pa is None:   # a 2 MiB / 1 GiB leaf: no PT page counts it
            use["rss_counts"] += leaf.size
    return use


def kib(n):
    return "%d" % (n // 1024)


class PgPs(Command):
    """List processes with their memory use, computed from their page tables.

Usage: pg-ps
Columns: PID (* marks the process whose page table is in CR3), STATE, NAME,
RSS and PSS in KiB (the zero page excluded; PSS divides every page by its PT
page's share count and by the PT pages mapping its frame), page-table pages below
the PML4 (and how many PT pages are shared with other address spaces), and
the physical address of the PML4 (pg-walk / pg-ptdump -p PID walk it).
Warns when a process's PT present counts (what the kernel's RSS is built
from) disagree with the present entries actually in its page tables."""

    NAME = "pg-ps"

    def run(self, args):
        if args:
            self.usage_error()
        procs = list(processes())
        loaded = read_cr3() & ~0xfff
        out("%6s %-9s %-16s %9s %9s %10s  %s" % ("PID", "STATE", "NAME", "RSS KiB", "PSS KiB",
                                                 "PT (shr)", "PML4"))
        for p in procs:
            state = enum_name(N.PROC_STATE_ENUM, int(p["state"]))
            cr3 = address_space_cr3(p)
            if cr3 is None:
                use, root = {"rss": 0, "rss_counts": 0, "pss": 0, "tables": 0,
                             "shared_pts": 0}, "-"
            else:
                use, root = memory_usage(cr3), "%#x" % cr3
            out("%s%5d %-9s %-16s %9s %9s %6d (%d)  %s" % (
                "*" if cr3 == loaded else " ", int(p["pid"]),
                state.replace("P_", ""), p["name"].string(), kib(use["rss"]),
                kib(int(use["pss"])), use["tables"], use["shared_pts"], root))
            if use["rss"] != use["rss_counts"]:
                out("  warning: pid %d's PT present counts add up to %s KiB, its present "
                    "entries to %s KiB" % (int(p["pid"]), kib(use["rss_counts"]), kib(use["rss"])))
        out("(* = the address space in CR3 now)")


def vma_flag_names(flags):
    defs = headers.defines(N.AS_HEADER)
    return [n[len(N.VMA_FLAG_PREFIX):].lower() for n, v in sorted(defs.items(), key=lambda kv: kv[1])
            if n.startswith(N.VMA_FLAG_PREFIX) and v and not v & (v - 1) and flags & v]


def prot_text(prot):
    return "".join(c if prot & bit else "-" for c, bit in (("r", 1), ("w", 2), ("x", 4)))


class PgVmas(Command):
    """List the virtual memory areas (VMAs) of a process.

Usage: pg-vmas PID
One line per VMA in address order: range, size, protection (r w x), kind
(the VM_ kinds of mm/pt/vmflags.h it has: anon, shared, file, heap), @file
offset for file mappings, and how much of it is resident (present leaf entries in
the process's page tables). Ends with the brk area [heap start, break)."""

    NAME = "pg-vmas"

    def run(self, args):
        if len(args) != 1:
            self.usage_error()
        p = find_process(to_int(args[0]))
        aspace = p["as"]
        if int(aspace) == 0:
            out("pid %d (%s) has no user address space" % (int(p["pid"]), p["name"].string()))
            return
        aspace = aspace.dereference()
        cr3 = address_space_cr3(p)
        resident = list(leaves(cr3, 0, USER_END))
        out("pid %d (%s), PML4 at PA %#x" % (int(p["pid"]), p["name"].string(), cr3))
        out("  %-37s %9s %4s  %-14s %s" % ("range", "size", "prot", "kind", "resident"))
        vma = field(aspace, N.AS_VMAS, "struct addrspace")
        while int(vma) != 0:
            v = vma.dereference()
            start, end = int(v["start"]), int(v["end"])
            res = sum(min(l.va + l.size, end) - max(l.va, start) for l in resident
                      if l.va < end and l.va + l.size > start)
            kind = ",".join(vma_flag_names(int(v["flags"]))) or "-"
            if int(v["obj"]) != 0:
                kind += " @%#x" % int(v["obj_off"])
            out("  %#018x-%#018x %9s %4s  %-14s %s" % (start, end - 1, human_size(end - start),
                                                       prot_text(int(v["prot"])), kind,
                                                       human_size(res) if res else "0"))
            vma = v["next"]
        out("  heap [%#x, %#x)" % (int(aspace["heap_start"]), int(aspace["brk"])))


PgPs()
PgVmas()
