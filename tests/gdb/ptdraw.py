"""tests/gdb/ptdraw.py -- gdb batch test: the user-side tool ptdraw
(user/ptdraw.c, through the pagoda_pttree system call) and gdb's pg-draw
draw the same graph, on the pictures scenario (init=/bin/ptpictures,
user/ptpictures.c; tests/scripts.txt).

After each picture the scenario calls pagoda_vmcheck; stopped there (the
processes drawn wait in read()), for every picture:
  * the section ptdraw printed on the console is complete and parses, with
    no node or edge written twice;
  * pg-draw of the same pids gives the same structure: the same table nodes
    with the same labels (physical address, present, share, leaf summary)
    and the same edges (dashed alike);
and what each step is about shows in the graph:
  after-fork    the subject's 2 MiB region: ONE PT node, share 2, with two
                parents, the PD of each process, both edges dashed;
  child-write   the child has its own PT page for the region (share 1),
                with COW entries, and the parent's has share 1 now;
  three-shells  one PT node (the text) with three parents, share 3;
  madv-free     the region's PT page has 16 lazy-free entries;
  reclaimed     they are gone: lazy-free 0, 16 fewer present entries;
  swapped-out   (the run's swap area: --disk 16M:swap, ptpictures swap=/dev/vda)
                a new subject forked, then MADV_PAGEOUT of its 32 written
                pages: ONE PT node for the region, share 2, with 32 swap
                entries -- paged out once for both;
  child-swap-in the child read page 0 back: its own PT page (share 1) with
                31 swap entries, the parent's (share 1) still 32.
"""
import os
import sys

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import ptgraph  # noqa: E402

sys.path.insert(0, os.path.join(t.REPO, "tools"))
import pictures  # noqa: E402

PICTURES = 8
REGION_PTS = {}     # picture name -> graph, for the checks across steps


def pt_nodes(g):
    return [n for n in g.nodes if g.level(n) == "PT"]


def region_pt(g, pid):
    """The PT node of pid's 2 MiB region: 16 or more present entries, not
    all of them file pages (the text)."""
    for n in pt_nodes(g):
        f = g.fields(n)
        if f["file"] < f["present"] and f["present"] >= 16 and "pid%d" % pid in g.roots_of(n):
            return n
    return None


def step_checks(sec, g):
    name, pids = sec["name"], sec["pids"]
    if name == "after-fork":
        n = region_pt(g, pids[0])
        t.check(n and g.fields(n)["share"] == 2 and len(g.parents(n)) == 2 and
                g.roots_of(n) == {"pid%d" % p for p in pids} and
                all(d for s, dst, d in g.edges if dst == n),
                "after fork: the region's PT page is drawn once, share 2, dashed edges from both PDs", str(n))
    elif name == "child-write":
        mine, theirs = region_pt(g, pids[1]), region_pt(g, pids[0])
        t.check(mine and theirs and mine != theirs and g.fields(mine)["share"] == 1 and
                g.fields(theirs)["share"] == 1 and g.fields(mine)["cow"] > 0,
                "after the child's write: child %s and parent %s have their own PT pages, the child's COW"
                % (mine, theirs))
    elif name == "three-shells":
        text = [n for n in pt_nodes(g) if len(g.parents(n)) == 3]
        t.check(len(text) == 1 and g.fields(text[0])["share"] == 3 and g.fields(text[0])["file"] > 0,
                "three shells: one text PT page with three parents, share 3", str(text))
    elif name == "madv-free":
        n = region_pt(g, pids[0])
        REGION_PTS[name] = g.fields(n) if n else {}
        t.check(n and g.fields(n)["lazy-free"] == 16, "MADV_FREE: 16 lazy-free entries in %s" % n)
    elif name == "reclaimed":
        before = REGION_PTS.get("madv-free", {})
        n = region_pt(g, pids[0])
        after = g.fields(n) if n else {}
        t.check(after.get("lazy-free") == 0 and after.get("present") == before.get("present", 0) - 16,
                "after reclaim: no lazy-free entries, 16 fewer present (%s -> %s)"
                % (before.get("present"), after.get("present")))
    elif name == "swapped-out":
        n = region_pt(g, pids[0])
        f = g.fields(n) if n else {}
        t.check(n and f.get("share") == 2 and len(g.parents(n)) == 2 and f.get("swap") == 32,
                "MADV_PAGEOUT: one PT page for both (share 2) with 32 swap entries", str(f))
    elif name == "child-swap-in":
        mine, theirs = region_pt(g, pids[1]), region_pt(g, pids[0])
        a, b = (g.fields(mine) if mine else {}), (g.fields(theirs) if theirs else {})
        t.check(mine and theirs and mine != theirs and a.get("share") == 1 and b.get("share") == 1 and
                a.get("swap") == 31 and b.get("swap") == 32,
                "the child's swap-in: its own PT page with 31 swap entries, the parent's 32", "%s %s" % (a, b))


def body():
    bp = gdb.Breakpoint("sys_vmcheck", type=gdb.BP_HARDWARE_BREAKPOINT)
    for k in range(1, PICTURES + 1):
        gdb.execute("continue", to_string=True)
        name, _ = t.here()
        if not t.check(name == "sys_vmcheck", "picture %d: stopped in sys_vmcheck" % k, str(name)):
            return
        secs = pictures.sections(t.serial_log())
        if len(secs) == k - 1:
            # gdb may report the hardware breakpoint of the last stop once
            # more when it steps over it with another CPU running: the
            # scenario has not printed picture k yet. Go on to the real stop.
            gdb.execute("continue", to_string=True)
            secs = pictures.sections(t.serial_log())
        if not t.check(len(secs) == k and secs[-1]["complete"], "picture %d: ptdraw's section is complete" % k,
                       "%d sections" % len(secs)):
            return
        sec = secs[-1]
        user = ptgraph.parse(sec["dot"])
        t.check(not user.duplicates and len(user.nodes) > len(sec["pids"]),
                "%s: ptdraw drew %d nodes, %d edges, nothing twice" % (sec["name"], len(user.nodes), len(user.edges)),
                "\n".join(user.duplicates))
        mine = ptgraph.parse(t.run('pg-draw -t "%s" %s' % (sec["title"], " ".join(map(str, sec["pids"])))))
        a, b = ptgraph.structure(mine), ptgraph.structure(user)
        t.check(a == b and mine.title == user.title, "%s: pg-draw and ptdraw draw the same graph" % sec["name"],
                "only pg-draw: %s %s\nonly ptdraw: %s %s" % (a[0] - b[0], a[1] - b[1], b[0] - a[0], b[1] - a[1]))
        step_checks(sec, user)
    bp.delete()


t.scenario(body)
