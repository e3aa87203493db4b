"""tests/gdb/pv.py -- gdb batch test: what the pv_ops patcher did to the call
sites, as pg-pvsites shows it (run with pv=patched, the default, and with
pv=indirect; tests/scripts.txt).

Stops after pv_init (at ktest_run_selected) and checks that:
  * pg-pvsites lists every record of .pvsites (the count matches the
    section's size), each site inside kernel text with a named slot;
  * pv=indirect: every site is still the indirect call through pv_ops;
  * pv=patched: no site is indirect, both direct calls and inline native
    code occur, and each inline site holds the instruction its slot stands
    for (irq.irq_disable -> cli, mmu.write_cr3 -> mov cr3, ...).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402

SITE_LINE = re.compile(r"^  (0x[0-9a-f]+) (\S+)\s+(\S+)\s+(indirect|direct -> \S+|inline)\s+(.*)$")
NATIVE = {   # slot -> what its inline replacement must contain
    "irq.irq_disable": "cli",
    "irq.irq_enable": "sti",
    "irq.save_fl": "pushf",
    "irq.halt": "hlt",
    "mmu.read_cr2": "cr2",
    "mmu.read_cr3": "mov rax,cr3",
    "mmu.write_cr3": "mov cr3,",
    "mmu.flush_one": "invlpg",
}


def body():
    t.stop_in("ktest_run_selected")            # kmain calls it after pv_init
    indirect_mode = "pv=indirect" in t.gdb.parse_and_eval("boot_info.cmdline").string()
    out = t.run("pg-pvsites -a")
    m = re.search(r"^(\d+) pv_ops call sites", out, re.M)
    sites = [SITE_LINE.match(l) for l in out.splitlines()]
    sites = [s for s in sites if s]
    expect = (t.value("&_pvsites_end") - t.value("&_pvsites_start")) // t.value("sizeof(struct pv_site)")
    t.check(m and int(m.group(1)) == expect == len(sites) > 0,
            "pg-pvsites lists all %d .pvsites records" % expect, out[:2000])
    text = (t.value("&_text_start"), t.value("&_text_end"))
    t.check(all(text[0] <= int(s.group(1), 16) < text[1] and not s.group(3).startswith("slot ")
                for s in sites), "every site is in kernel text and names its pv_ops slot")
    kinds = [s.group(4).split(" ")[0] for s in sites]
    if indirect_mode:
        t.check(set(kinds) == {"indirect"}, "pv=indirect: every site still calls through pv_ops",
                str(sorted(set(kinds))))
        return
    t.check("indirect" not in kinds and "direct" in kinds and "inline" in kinds,
            "pv=patched: no indirect call left; direct calls and inline code", str(sorted(set(kinds))))
    wrong = [s.group(0) for s in sites if s.group(4) == "inline" and s.group(3) in NATIVE
             and NATIVE[s.group(3)] not in s.group(5)]
    checked = sum(1 for s in sites if s.group(4) == "inline" and s.group(3) in NATIVE)
    t.check(checked > 0 and not wrong,
            "%d inline sites hold their slot's native instruction" % checked, "\n".join(wrong))


t.scenario(body)
