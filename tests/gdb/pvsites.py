"""tests/gdb/pvsites.py -- gdb batch test: what the boot-time patcher made of
the pv_ops call sites, as pg-pvsites sees it.

Stops in proc_init (kmain calls it after pv_init) and checks that:
  * pg-pvsites -a counts the same sites, in the same forms, as the kernel's
    boot line "pv: N sites: A inlined, D direct calls" (or, with pv=indirect,
    "pv: N sites: indirect calls"): the helper and the patcher agree on the
    .pvsites record format;
  * patched: the irq_disable site in push_off is an inline cli; indirect:
    it is still the call through pv_ops.
Run with 'test=boot' and with 'test=boot pv=indirect' (tests/scripts.txt).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402


def boot_line():
    """(sites, inlined, direct, indirect) from the kernel's pv: boot line."""
    log = t.serial_log()
    m = re.search(r"pv: (\d+) sites: (\d+) inlined, (\d+) direct calls", log)
    if m:
        return int(m.group(1)), int(m.group(2)), int(m.group(3)), 0
    m = re.search(r"pv: (\d+) sites: indirect calls", log)
    t.check(m is not None, "the boot log has the pv: line", log[-2000:])
    n = int(m.group(1)) if m else -1
    return n, 0, 0, n


def forms(out):
    """{'inline': n, 'direct': n, 'indirect': n} from pg-pvsites' last line."""
    m = re.search(r"^forms: (.*)$", out, re.M)
    t.check(m is not None, "pg-pvsites ends with the count of each form", out[-500:])
    got = {"inline": 0, "direct": 0, "indirect": 0}
    for part in (m.group(1).split(", ") if m else []):
        kind, n = part.rsplit(" ", 1)
        got[kind] = int(n)
    return got


def body():
    t.stop_in("proc_init")
    sites, inlined, direct, indirect = boot_line()
    out = t.run("pg-pvsites -a")
    t.check(re.search(r"^%d pv_ops call sites" % sites, out, re.M) is not None,
            "pg-pvsites counts the %d sites the kernel reported" % sites, out[:300])
    got = forms(out)
    t.check(got == {"inline": inlined, "direct": direct, "indirect": indirect},
            "forms match the boot line (%d inline, %d direct, %d indirect)"
            % (inlined, direct, indirect), str(got))
    cli = [ln for ln in out.splitlines() if "push_off" in ln and "irq.irq_disable" in ln]
    t.check(len(cli) == 1, "push_off has one irq_disable site", "\n".join(cli))
    want = "indirect" if indirect else "inline"
    t.check(cli and want in cli[0] and (indirect or "cli" in cli[0]),
            "push_off's irq_disable site is %s" % want, "\n".join(cli))


t.scenario(body)
