"""tests/gdb/console.py -- gdb batch test of the debugging console: with the
serial console on a socket (tools/debug.sh --console, as make debug does),
a command typed through tools/console.py (make console) reaches the shell
while gdb holds the kernel, and causes the fork gdb stops in
(tests/scripts.txt).

Checks that:
  * the console client attaches to $PAGODA_CONSOLE while the kernel is
    stopped in init's fork of the shell (first proc_fork);
  * the next proc_fork is the shell's, for the line typed: the current
    process is sh, and the kernel echoed the typed line into the log;
  * what the kernel prints reaches the client (the echo of the line, the
    command's output), and is also kept in the serial log (logfile=), which
    pg-log reads;
  * after the fork, pg-draw shows the shell and its child sharing PT pages;
    when the child exits, its output has reached the client.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

import gdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gdbtest as t  # noqa: E402
import ptgraph  # noqa: E402
from pagoda import proc  # noqa: E402

TYPED = "echo typed-at-the-console\n"
WAIT_S = 30


def wait_for(path, text, times=1):
    """Has file path come to contain text `times` times (within WAIT_S)?"""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        if open(path, errors="replace").read().count(text) >= times:
            return True
        time.sleep(0.1)
    return False


def body():
    sock = os.environ.get("PAGODA_CONSOLE", "")
    t.check(os.path.exists(sock), "the console socket %s exists" % sock)
    bp = gdb.Breakpoint("proc_fork", type=gdb.BP_HARDWARE_BREAKPOINT)
    gdb.execute("continue", to_string=True)
    t.check(t.here()[0] == "proc_fork", "stopped in init's fork of the shell")
    seen = tempfile.NamedTemporaryFile(prefix="console.", delete=False)
    client = subprocess.Popen(["python3", os.path.join(t.REPO, "tools", "console.py"), sock],
                              stdin=subprocess.PIPE, stdout=seen, stderr=subprocess.PIPE)
    client.stdin.write(TYPED.encode())
    client.stdin.flush()
    gdb.execute("continue", to_string=True)
    me = proc.current_process()
    if me is not None and me["name"].string() == "init":
        # gdb may report the hardware breakpoint of the last stop (init's
        # fork) once more when it steps over it with another CPU running
        # (seen under load; tests/gdb/ptdraw.py does the same): on to the
        # shell's fork.
        gdb.execute("continue", to_string=True)
        me = proc.current_process()
    t.check(t.here()[0] == "proc_fork" and me is not None and me["name"].string() == "sh",
            "the typed line makes the shell fork (proc_fork in sh)",
            me["name"].string() if me is not None else "no process")
    t.check(TYPED.strip() in t.serial_log(), "the kernel echoed the typed line; the log keeps it")
    t.check(TYPED.strip() in t.run("pg-log 5"), "pg-log shows it")
    bp.delete()
    t.run("finish")
    child = t.value("$rax")
    g = ptgraph.parse(t.run("pg-draw %d %d" % (int(me["pid"]), child)))
    t.check(any(len(g.parents(n)) == 2 for n in g.nodes if g.level(n) == "PT"),
            "pg-draw: the shell and its child %d share a PT page" % child)
    t.stop_in("proc_exit")        # the child, after printing
    t.stop_in("reap_status")      # the shell reaps it: a zombie, no address space
    ps = t.run("pg-ps")
    t.check(re.search(r"%d ZOMBIE" % child, ps) is not None and "error" not in ps,
            "pg-ps lists the zombie child (no page table) without an error", ps)
    # the echo of the typed line holds the text once, the command's output
    # again (after a prompt, or before it when the line came first: type-ahead)
    t.check(wait_for(seen.name, "typed-at-the-console", times=2),
            "the client received the command's output through the socket")
    client.stdin.close()
    client.terminate()
    client.wait()
    err = client.stderr.read()
    text = open(seen.name, errors="replace").read()
    t.check(text.startswith(TYPED.strip()) and "attached" in err.decode(),
            "the client said it attached; the kernel's echo of the line came back first",
            "%r, stderr %r" % (text, err))
    os.unlink(seen.name)


t.scenario(body)
