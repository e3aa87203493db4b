"""tests/gdb/gdbtest.py -- a tiny check library for gdb batch tests.

A scenario (tests/gdb/SCENARIO.py) runs inside gdb, attached to a paused
QEMU by tools/debug.sh --batch. It drives the kernel with gdb commands and
checks what the pg- helpers print:

    import gdbtest as t
    t.stop_in("kmain")                       # hbreak + continue
    out = t.run("pg-walk kmain")             # a command's output (fails the
    t.check("P W" in out, "kernel text is present")   # test if it errors)
    t.done()                                 # exit status: 0 iff all passed

Every check prints "ok - what" or "FAIL - what: why"; done() prints the
summary and quits gdb with the status tests/run_tests.py judges. A helper
that raises (a Python traceback, or a gdb error where none was expected)
fails the test with the command and its message.
"""
import os
import re
import sys
import traceback

import gdb

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tools", "gdb"))
import pagoda  # noqa: E402,F401  (already loaded by gdbinit; gives tests its modules)

failures = []
passes = 0


def check(cond, what, detail=""):
    """Record one expectation."""
    global passes
    if cond:
        passes += 1
        print("ok - %s" % what)
    else:
        failures.append(what)
        print("FAIL - %s%s" % (what, (": " + detail) if detail else ""))
    return cond


def run(cmd):
    """Output of one gdb command; an error fails the test and returns ''."""
    try:
        text = gdb.execute(cmd, to_string=True)
    except gdb.error as e:
        check(False, "command '%s' runs" % cmd, str(e))
        return ""
    check("Traceback" not in text and "Python Exception" not in text,
          "command '%s' prints no Python exception" % cmd, text)
    return text


def run_error(cmd):
    """The error message of a command that must fail cleanly ('' if it did
    not fail, which fails the test)."""
    try:
        text = gdb.execute(cmd, to_string=True)
    except gdb.error as e:
        msg = str(e)
        check("Traceback" not in msg and "Python Exception" not in msg,
              "'%s' fails with a one-line message" % cmd, msg)
        return msg
    check(False, "'%s' fails" % cmd, "it printed: " + text)
    return ""


def value(expr):
    """An expression's integer value in the stopped kernel."""
    return int(gdb.parse_and_eval(expr).cast(gdb.lookup_type("unsigned long")))


def here():
    """(function name, source line) where the CPU is stopped."""
    frame = gdb.selected_frame()
    func = frame.function()
    return (func.name if func else None), frame.find_sal().line


def stop_in(func):
    """Run until func (hardware breakpoint: works from the first instruction
    after reset, before the kernel's address space exists)."""
    bp = gdb.Breakpoint(func, type=gdb.BP_HARDWARE_BREAKPOINT, temporary=True)
    gdb.execute("continue", to_string=True)
    name, line = here()
    check(name == func, "stopped in %s" % func, "stopped in %s" % name)
    if bp.is_valid():
        bp.delete()


def source_line(path, pattern):
    """Line number of the first line of REPO/path matching regex pattern."""
    with open(os.path.join(REPO, path)) as f:
        for n, text in enumerate(f, 1):
            if re.search(pattern, text):
                return n
    raise AssertionError("no line matching %r in %s" % (pattern, path))


def pt_info(va, cr3=None):
    """How va is mapped, read with the helpers' own modules: a dict with
    'pde' (the PD entry), 'pt' (PA of the PT page, or None for a large page
    or no mapping), 'share' and 'present' (that PT page's counts from its
    struct page) and 'pte' (the leaf entry, or None). For scenarios such as
    "the share count drops from 2 to 1 across the unshare function":

        before = t.pt_info(va)
        t.run("finish")
        after = t.pt_info(va)
        t.check(before["share"] == 2 and after["share"] == 1, "...")
    """
    from pagoda import frames, layout, paging, pte
    steps = paging.walk(cr3 if cr3 is not None else layout.read_cr3(), va)
    info = {"pde": None, "pt": None, "share": None, "present": None, "pte": None}
    for s in steps:
        if s.level == pte.PD:
            info["pde"] = s.entry
            if s.entry & pte.P and not pte.is_leaf(s.entry, s.level):
                info["pt"] = pte.frame_addr(s.entry, s.level)
                info["share"], info["present"], _ = frames.pt_counts(info["pt"])
        if s.level == pte.PT:
            info["pte"] = s.entry
    return info


def serial_log():
    path = os.environ.get("PAGODA_SERIAL_LOG", "")
    return open(path, errors="replace").read() if os.path.exists(path) else ""


def scenario(body):
    """Run body() and quit gdb with the verdict. An exception in the
    scenario itself is a failure with its traceback."""
    try:
        body()
    except Exception:
        traceback.print_exc()
        failures.append("scenario raised")
    done()


def done():
    print("%d checks passed, %d failed%s" % (passes, len(failures),
                                            (": " + "; ".join(failures)) if failures else ""))
    sys.stdout.flush()
    gdb.execute("set confirm off")
    gdb.execute("quit %d" % (1 if failures or not passes else 0))
