"""tests/gdb/pv.py -- gdb batch test: what the pv_ops patcher did to the call
sites, as pg-pvsites shows it (run with pv=patched, the default, with
pv=indirect and with pv=checked; tests/scripts.txt). It replaces the former
tests/gdb/pvsites.py, whose checks are all here.

Stops after pv_init (at ktest_run_selected) and checks that:
  * pg-pvsites lists every record of .pvsites (the count matches the
    section's size), each site inside kernel text, in a named function,
    with a named slot;
  * its closing count of each form agrees with the kernel's own boot line
    ("pv: N sites: A inlined, D direct calls", or "N sites: indirect calls"):
    helper and patcher read the .pvsites records the same way;
  * pv=indirect: every site is still the indirect call through pv_ops, among
    them push_off's irq_disable;
  * pv=patched and pv=checked: no site is indirect, both direct calls and
    inline native code occur; each direct call goes to the function the
    backend put in that pv_ops slot (nat_*, or ck_* for the checking
    backend), and each inline site holds the instruction its slot stands
    for (irq.irq_disable -> cli, mmu.write_cr3 -> mov cr3, ...), push_off's
    irq_disable among them.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
from pagoda import syms  # noqa: E402

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


def boot_line():
    """{'inline': A, 'direct': D, 'indirect': I} and the site count, from
    the kernel's pv: boot line."""
    log = t.serial_log()
    m = re.search(r"^pv: (\d+) sites: (\d+) inlined, (\d+) direct calls", log, re.M)
    if m:
        return int(m.group(1)), {"inline": int(m.group(2)), "direct": int(m.group(3)), "indirect": 0}
    m = re.search(r"^pv: (\d+) sites: indirect calls", log, re.M)
    t.check(m is not None, "the boot log has the pv: line", log[-2000:])
    n = int(m.group(1)) if m else -1
    return n, {"inline": 0, "direct": 0, "indirect": n}


def forms(out):
    """{'inline': n, 'direct': n, 'indirect': n} from pg-pvsites' last line."""
    m = re.search(r"^forms: (.*)$", out, re.M)
    t.check(m is not None, "pg-pvsites ends with the count of each form", out[-500:])
    got = {"inline": 0, "direct": 0, "indirect": 0}
    for part in (m.group(1).split(", ") if m else []):
        kind, n = part.rsplit(" ", 1)
        got[kind] = int(n)
    return got


def listing():
    """(site matches, pg-pvsites -a output), after checking the count and
    that every site is in kernel text with a function and a slot name."""
    out = t.run("pg-pvsites -a")
    m = re.search(r"^(\d+) pv_ops call sites", out, re.M)
    sites = [s for s in map(SITE_LINE.match, out.splitlines()) if s]
    expect = (t.value("&_pvsites_end") - t.value("&_pvsites_start")) // t.value("sizeof(struct pv_site)")
    t.check(m and int(m.group(1)) == expect == len(sites) > 0,
            "pg-pvsites lists all %d .pvsites records" % expect, out[:2000])
    text = (t.value("&_text_start"), t.value("&_text_end"))
    t.check(all(text[0] <= int(s.group(1), 16) < text[1] and not s.group(3).startswith("slot ")
                and re.match(r"[\w.]+\+0x[0-9a-f]+$", s.group(2)) for s in sites),
            "every site is in kernel text, in a named function, and names its pv_ops slot")
    n, want = boot_line()
    got = forms(out)
    t.check(n == len(sites) and got == want,
            "forms match the boot line: %d sites, %s" % (n, want), "pg-pvsites: %s" % got)
    return sites, out


def slot_target(slot):
    """ELF name of the function the backend installed in pv_ops slot 'irq.halt'."""
    sym = syms.elf_symbol(t.value("pv_ops.%s" % slot))
    return sym[0] if sym else None


def body():
    t.stop_in("ktest_run_selected")            # kmain calls it after pv_init
    mode = re.search(r"\bpv=(\w+)", t.gdb.parse_and_eval("boot_info.cmdline").string())
    mode = mode.group(1) if mode else "patched"
    sites, out = listing()
    kinds = [s.group(4).split(" ")[0] for s in sites]
    cli = [s.group(0) for s in sites if s.group(2).startswith("push_off+")
           and s.group(3) == "irq.irq_disable"]
    t.check(len(cli) == 1, "push_off has one irq_disable site", out[:2000])
    if mode == "indirect":
        t.check(set(kinds) == {"indirect"}, "pv=indirect: every site still calls through pv_ops",
                str(sorted(set(kinds))))
        return
    t.check("indirect" not in kinds and "direct" in kinds and "inline" in kinds,
            "pv=%s: no indirect call left; direct calls and inline code" % mode, str(sorted(set(kinds))))
    wrong = [s.group(0) for s in sites if s.group(4).startswith("direct")
             and s.group(4).split()[-1] != slot_target(s.group(3))]
    t.check(not wrong, "every direct call goes to the function in its pv_ops slot (backend %s)"
            % t.gdb.parse_and_eval("pv_ops.name").string(), "\n".join(wrong))
    wrong = [s.group(0) for s in sites if s.group(4) == "inline" and s.group(3) in NATIVE
             and NATIVE[s.group(3)] not in s.group(5)]
    checked = sum(1 for s in sites if s.group(4) == "inline" and s.group(3) in NATIVE)
    t.check(checked > 0 and not wrong,
            "%d inline sites hold their slot's native instruction" % checked, "\n".join(wrong))
    t.check(cli and " inline " in cli[0] and "cli" in cli[0], "push_off's irq_disable is an inline cli",
            "\n".join(cli))


t.scenario(body)
