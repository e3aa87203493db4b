"""tests/gdb/draw.py -- gdb batch test of pg-draw (tools/gdb/pagoda/draw.py)
on a known scenario: init forks (the kernel boots to init, which forks the
shell; booted with ptshare=all, PT-level sharing). Stopped right after proc_fork returns, parent
and child share the PT page of their text; tests/scripts.txt.

Checks that pg-draw PARENT CHILD:
  * draws every page-table page once: as many table nodes as distinct table
    pages the two walks (pagoda.paging.leaves, pg-ptdump's walk) visit, and
    one edge per table entry, no line twice;
  * draws the shared PT page ONCE with two parents: the two PD pages, one
    reachable from each process, both edges dashed (write-protected PD
    entries);
  * labels every table with its sharers (share count less a text record's) and present count
    and every PT page with its leaf entries (present = the PT's count);
and that -d, -r, -o FILE.dot / FILE.png and bad arguments work.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import ptgraph  # noqa: E402
from pagoda import frames, paging, proc  # noqa: E402

USER_END = 1 << 47


def walked_tables(cr3):
    """Table pages of cr3's user half (PML4 included), by a walk that is
    not pg-draw's, and how many table entries lead to them."""
    seen = {paging.table_of(cr3)}
    links = []
    for _ in paging.leaves(cr3, 0, USER_END, lambda level, pa, path: (seen.add(pa), links.append(pa))):
        pass
    return seen, links


def check_counts(g):
    for node, label in g.nodes.items():
        if node.startswith("pid"):
            continue
        f = g.fields(node)
        _, present, _ = frames.pt_counts(int(node[1:], 16))
        share = frames.pt_sharers(int(node[1:], 16))   # a text record's share apart
        if not t.check(f["share"] == share and f["present"] == present,
                       "%s: %d sharers, present %d as in its struct page" % (node, share, present),
                       label):
            return
        if g.level(node) == "PT":
            t.check(f["cow"] <= present and f["file"] <= present and "zero" in f,
                    "%s: leaf summary (cow %d, file %d, zero %d of %d)"
                    % (node, f["cow"], f["file"], f["zero"], present), label)


def body():
    t.stop_in("proc_fork")
    t.run("finish")
    parent = int(proc.current_process()["pid"])
    child = t.value("$rax")
    pids = [parent, child]
    crs = {pid: proc.address_space_cr3(proc.find_process(pid)) for pid in pids}
    g = ptgraph.parse(t.run("pg-draw %d %d" % (parent, child)))
    t.check(not g.duplicates, "no node or edge written twice", "\n".join(g.duplicates))
    tables, links = set(), 0
    for pid in pids:
        seen, walked = walked_tables(crs[pid])
        tables |= seen
        links += len(walked)
    table_nodes = {n for n in g.nodes if not n.startswith("pid")}
    t.check(table_nodes == {"t%x" % pa for pa in tables},
            "%d table nodes: the distinct table pages of both walks" % len(tables),
            "%s vs %s" % (sorted(table_nodes), sorted("t%x" % pa for pa in tables)))
    t.check(len(g.nodes) == len(tables) + 2 and len(g.edges) == links + 2,
            "%d nodes (tables + 2 processes), %d edges (table entries + 2 roots)"
            % (len(tables) + 2, links + 2), "%d nodes, %d edges" % (len(g.nodes), len(g.edges)))
    shared = [n for n in table_nodes if g.fields(n)["share"] > 1]
    t.check(len(shared) >= 1 and all(g.level(n) == "PT" for n in shared),
            "the fork shares PT pages: %s" % shared)
    for n in shared:
        ps = g.parents(n)
        t.check(len(ps) == 2 and all(g.level(p) == "PD" for p in ps) and
                [g.roots_of(p) for p in ps] in ([{"pid%d" % parent}, {"pid%d" % child}],
                                                [{"pid%d" % child}, {"pid%d" % parent}]),
                "shared %s is drawn once with two parents, the PD of each process" % n, str(ps))
        t.check(all(d for s, dst, d in g.edges if dst == n), "both PD entries above %s are dashed" % n)
    check_counts(g)

    shallow = ptgraph.parse(t.run("pg-draw -d 3 %d %d" % (parent, child)))
    t.check({shallow.level(n) for n in shallow.nodes} == {"pid", "PML4", "PDPT", "PD"},
            "-d 3 stops at the PD pages")
    text = ptgraph.parse(t.run("pg-draw -r 0x400000-0x600000 %d %d" % (parent, child)))
    pts = [n for n in text.nodes if text.level(n) == "PT"]
    t.check(len(pts) == 1 and pts[0] in shared and len(text.nodes) == 2 + 2 * 3 + 1,
            "-r 0x400000-0x600000: the two paths to the one shared text PT page", str(sorted(text.nodes)))
    out = tempfile.mkdtemp(prefix="pg-draw.")
    t.run("pg-draw -t 'after fork' -o %s/g.dot %d %d" % (out, parent, child))
    again = ptgraph.parse(open(os.path.join(out, "g.dot")).read())
    t.check(ptgraph.structure(again) == ptgraph.structure(g) and again.title == "after fork",
            "-o FILE.dot writes the same graph, with its title")
    t.run("pg-draw -o %s/g.png %d %d" % (out, parent, child))
    with open(os.path.join(out, "g.png"), "rb") as f:
        t.check(f.read(8) == b"\x89PNG\r\n\x1a\n", "-o FILE.png renders a PNG with Graphviz")
    t.check("no process with pid 999" in t.run_error("pg-draw 999"), "an unknown pid is an error")
    t.check("depth" in t.run_error("pg-draw -d 7"), "a bad depth is an error")


t.scenario(body)
