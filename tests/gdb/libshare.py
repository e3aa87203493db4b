"""tests/gdb/libshare.py -- gdb batch test: two different dynamically linked
programs point at one PT page for libc.so's text (issue 21,
docs/shared-libraries.md). Boots usertests' libshare_libc under ptshare=all
(tests/scripts.txt) and stops in pt_tree, which its first pagoda_pttree call
reaches while libhold-dyn and libhold-dyn-nopie both run and have answered.

Checks that:
  * libc.so's canonical address (the first slot of the library area,
    lib_slots[0].addr in mm/ptshare_text.c) lies in [USER_LIB_BASE,
    USER_LIB_END) and its first writable page starts a 2 MiB chunk;
  * `pg-walk ADDR -p PID` in each process passes through the same PT page and
    prints its share count 3: 2 address spaces and its text record
    (mm/ptshare_text.c); no PD entry above it has W;
  * the PT page maps every read-only page of libc (present count) and the
    data chunk's PT pages differ (private);
  * in both processes the PT present counts add up to the present entries.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import proc, pte  # noqa: E402

LIB_BASE, LIB_END, CHUNK = 0x7fffc0000000, 0x7fffe0000000, 2 << 20


def holders():
    """{"libhold-dyn" or "libhold-dyn-nopie": pid} of the two libhold processes
    (process names are cut to 15 characters, as Linux's comm)."""
    names = {}
    for p in proc.processes():
        name = p["name"].string().split("/")[-1]
        if name.startswith("libhold-dyn"):
            names["libhold-dyn-nopie" if name.startswith("libhold-dyn-n") else name] = int(p["pid"])
    return names


def body():
    t.stop_in("pt_tree")
    addr = t.value("lib_slots[0].addr")
    data = t.value("lib_slots[0].base") + t.value("lib_slots[0].len") - CHUNK
    t.check(LIB_BASE <= addr < data < LIB_END and data % CHUNK == 0,
            "libc.so at %#x, its data from %#x (a 2 MiB boundary)" % (addr, data))
    pids = holders()
    t.check(sorted(pids) == ["libhold-dyn", "libhold-dyn-nopie"],
            "libhold-dyn and libhold-dyn-nopie run", str(pids))
    pts = {}
    for name, pid in sorted(pids.items()):
        out = t.run("pg-walk %#x -p %d" % (addr, pid))
        print(out)
        m = re.search(r"PT page (0x[0-9a-f]+): share count (\d+) \((\d+) address spaces "
                      r"and its text record\), present count (\d+)", out)
        t.check(m is not None, "pg-walk in pid %d shows the PT page and its record" % pid, out)
        if m:
            pts[name] = (int(m.group(1), 16), int(m.group(3)), int(m.group(4)))
            t.check(int(m.group(2)) == int(m.group(3)) + 1,
                    "pid %d: the share count is the sharers' and the record's" % pid)
        cr3 = proc.address_space_cr3(proc.find_process(pid))
        info = t.pt_info(addr, cr3)
        t.check(not info["pde"] & pte.W, "pid %d's PD entry for libc's text has no W" % pid)
        t.check(t.pt_info(data, cr3)["pt"] != info["pt"], "pid %d: data in another PT page" % pid)
        use = proc.memory_usage(cr3)
        t.check(use["rss"] == use["rss_counts"],
                "pid %d: PT present counts add up to its present entries" % pid, str(use))
    a, b = pts.get("libhold-dyn"), pts.get("libhold-dyn-nopie")
    t.check(a is not None and a == b and a[1] == 2,
            "one PT page, two address spaces sharing it, in both: %s %s" % (a, b))
    t.check(a is not None and a[2] == (data - addr) // 4096,
            "it maps all %d read-only pages of libc" % ((data - addr) // 4096))
    infos = [t.pt_info(data, proc.address_space_cr3(proc.find_process(p))) for p in pids.values()]
    t.check(len(infos) == 2 and infos[0]["pt"] != infos[1]["pt"],
            "the data chunk's PT pages are private")


t.scenario(body)
