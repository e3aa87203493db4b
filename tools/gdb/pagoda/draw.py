"""pagoda.draw -- pg-draw: a Graphviz picture of processes' page-table trees.

The graph (the format user/ptdraw.c writes too, so that both can be
compared line for line, tests/gdb/ptdraw.py):
  * one node per process, "pid N\\nNAME", with an edge to its PML4;
  * one node per page-table page, drawn ONCE however many address spaces
    point at it, labelled with its level, physical address, present count
    and share count (from its struct page); a PT page also gets a summary of
    its leaf entries: present, COW, lazy-free, file and zero-page entries,
    and its swap entries when it has some;
  * one edge per table entry pointing at a lower table, labelled with the
    first virtual address the entry maps; dashed when the entry is
    write-protected (a PD entry above a PT page shared by fork). A PT page
    shared by two processes has two incoming edges, one from each PD.
"""
import os
import shutil
import subprocess

from . import headers
from . import names as N
from . import pte
from .core import REPO_ROOT, Command, PagodaError, out, symbol_value, to_int
from .frames import frame_db, page, pt_counts, pt_sharers, type_name
from .layout import read_u64s
from .paging import tables
from .proc import USER_END, address_space_cr3, find_process, processes
from .pte import LEVEL_NAMES, PT

PAGE_HEADER = "mm/frame/page.h"
LEVEL_COLOURS = {4: "#dbe8f6", 3: "#e4f2dc", 2: "#fdf3cf", 1: "#ffffff"}
SHARED_COLOUR = "#f8c08a"
HEADER = ['digraph pagetables {',
          '\tgraph [rankdir=LR, ranksep=0.45, nodesep=0.12, fontname="Helvetica", fontsize=12, labelloc=t];',
          '\tnode [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=9];',
          '\tedge [fontname="Helvetica", fontsize=8];']


def zero_page_pa():
    """Physical address of the shared zero page (mm/fault.c), or None."""
    try:
        zp = symbol_value(N.ZERO_PAGE, N.PROVIDER_FAULT)
    except PagodaError:
        return None
    frames, _ = frame_db()
    return int(zp - frames) << 12 if int(zp) else None


def lazy_mapping(e):
    """Is entry e a lazy-free page's clean entry (page_lazyfree_mapping:
    its frame on the lazy list, AF_LAZYFREE, and D clear)?"""
    if e & pte.D or not e & pte.P:
        return False
    pg = page(pte.frame_addr(e, PT) >> 12)
    return type_name(pg).endswith("ANON") and \
        bool(int(pg["aflags"]) & headers.require(PAGE_HEADER, "AF_LAZYFREE"))


def leaf_summary(pt_pa, zero_pa):
    """{present, cow, lazy, file, zero, swap}: the entries of the PT page at
    pt_pa that map a frame (pte.is_mapped), how many of them carry each
    software state or map a lazy-free page, and its swap entries (pages out
    on swap)."""
    masks = {k: headers.require(pte.PTE_HEADER, "PTE_" + name)
             for k, name in (("cow", "COW"), ("file", "FILE"))}
    s = dict(present=0, cow=0, lazy=0, file=0, zero=0, swap=0)
    for e in read_u64s(pt_pa, pte.ENTRIES):
        s["swap"] += pte.is_swap(e, PT)
        if not pte.is_mapped(e):
            continue
        s["present"] += 1
        for k, m in masks.items():
            s[k] += bool(e & m)
        s["zero"] += pte.frame_addr(e, PT) == zero_pa
        s["lazy"] += lazy_mapping(e)
    return s


def table_label(level, pa, share, present, summary):
    lines = ["%s %#x" % (LEVEL_NAMES[level], pa), "present %d, share %d" % (present, share)]
    if summary is not None:
        lines.append("cow %(cow)d, lazy-free %(lazy)d, file %(file)d, zero %(zero)d" % summary)
    if summary is not None and summary["swap"]:
        lines.append("swap %(swap)d" % summary)
    return "\\n".join(lines)


def table_node(level, pa, share, present, summary):
    colour = SHARED_COLOUR if share > 1 else LEVEL_COLOURS[level]
    return '\tt%x [label="%s", fillcolor="%s"];' % (pa, table_label(level, pa, share, present, summary),
                                                  colour)


def table_edge(parent, child, va, writable):
    return '\tt%x -> t%x [label="%#x"%s];' % (parent, child, va, "" if writable else ", style=dashed")


def process_lines(pid, name, root):
    return ['\tpid%d [label="pid %d\\n%s", shape=ellipse, fillcolor="#ffffff"];' % (pid, pid, name),
            '\tpid%d -> t%x;' % (pid, root)]


def graph_lines(procs, lo, hi, depth, title=None):
    """The dot text of procs [(pid, name, cr3)], as a list of lines."""
    lines = list(HEADER)
    if title:
        lines.append('\tlabel="%s";' % title)
    zero_pa = zero_page_pa()
    drawn, edges = set(), set()
    for pid, name, cr3 in procs:
        for t in tables(cr3, lo, hi, depth):
            if t.parent is None:
                lines += process_lines(pid, name, t.pa)
            elif (t.parent, t.pa) not in edges:
                edges.add((t.parent, t.pa))
                lines.append(table_edge(t.parent, t.pa, t.va, t.entry & pte.W))
            if t.pa not in drawn:
                drawn.add(t.pa)
                _, present, _ = pt_counts(t.pa)
                share = pt_sharers(t.pa)
                summary = leaf_summary(t.pa, zero_pa) if t.level == PT else None
                lines.append(table_node(t.level, t.pa, share, present, summary))
    lines.append("}")
    return lines


def render(dot_text, path):
    """Write dot_text to path: as is for .dot/.gv, through Graphviz's dot for
    .png/.svg/.pdf (installed on demand by tools/deps.sh pictures)."""
    fmt = os.path.splitext(path)[1].lstrip(".").lower()
    if fmt in ("dot", "gv", ""):
        with open(path, "w") as f:
            f.write(dot_text)
        return
    if fmt not in ("png", "svg", "pdf"):
        raise PagodaError("output %s: use .dot, .png, .svg or .pdf" % path)
    if not shutil.which("dot"):
        subprocess.run([os.path.join(REPO_ROOT, "tools", "deps.sh"), "pictures"], check=False)
    if not shutil.which("dot"):
        raise PagodaError("Graphviz's dot is not installed (tools/deps.sh pictures)")
    r = subprocess.run(["dot", "-T" + fmt, "-o", path], input=dot_text.encode(),
                       stderr=subprocess.PIPE)
    if r.returncode:
        raise PagodaError("dot failed: %s" % r.stderr.decode(errors="replace").strip())


def parse_range(text):
    lo, sep, hi = text.partition("-")
    if not sep:
        raise PagodaError("range %s: expected LO-HI" % text)
    return to_int(lo), to_int(hi)


class PgDraw(Command):
    """Draw processes' page-table trees as a Graphviz graph.

Usage: pg-draw [-o FILE] [-r LO-HI] [-d DEPTH] [-t TITLE] [PID...]
  PID...    the processes to draw (default: every process with a user
            address space); a page-table page several of them share is
            drawn once, with an edge from each sharer
  -o FILE   write to FILE instead of printing: .dot as text, .png/.svg/.pdf
            rendered with Graphviz's dot (installed by tools/deps.sh pictures)
  -r LO-HI  only the tables that map part of [LO, HI) (default: user half)
  -d DEPTH  table levels drawn: 4 = PML4 to PT (default), 1 = PML4 only
  -t TITLE  a title on the picture
Nodes: PML4/PDPT/PD/PT pages with physical address, present and share count
(orange: shared); PT pages add their leaf entries: cow, lazy-free, file, zero
page, and swap entries when there are some. Edges: table entries, labelled with the first address they map, dashed
when write-protected (the PD entries above a PT page shared by fork).
The same picture without gdb: ptdraw PID... in the guest (docs/debugging.md)."""

    NAME = "pg-draw"

    def run(self, args):
        opts, pids = {"-o": None, "-r": None, "-d": "4", "-t": None}, []
        while args:
            a = args.pop(0)
            if a in opts:
                if not args:
                    self.usage_error()
                opts[a] = args.pop(0)
            else:
                pids.append(to_int(a))
        lo, hi = parse_range(opts["-r"]) if opts["-r"] else (0, USER_END)
        depth = int(opts["-d"], 0)
        if not 1 <= depth <= 4:
            raise PagodaError("depth %d: choose 1 (PML4) to 4 (down to the PT pages)" % depth)
        procs = [find_process(pid) for pid in pids] or list(processes())
        drawn = [(int(p["pid"]), p["name"].string(), address_space_cr3(p)) for p in procs
                 if address_space_cr3(p) is not None]
        if not drawn:
            raise PagodaError("no process with a user address space to draw")
        text = "\n".join(graph_lines(drawn, lo, hi, depth, opts["-t"])) + "\n"
        if opts["-o"]:
            render(text, opts["-o"])
            out("pg-draw: %d process(es) -> %s" % (len(drawn), opts["-o"]))
        else:
            out(text.rstrip("\n"))


PgDraw()
