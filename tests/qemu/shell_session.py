#!/usr/bin/env python3
"""tests/qemu/shell_session.py -- a scripted session at the Pagoda shell.

Boots the normal system (init starts sh on the console), types commands on
the serial console, and checks what comes back: the prompt, the console's
backspace editing (DEL erases the x in "pagodx"), a pipeline,
$? after true/false, && and ||, a program from /bin, cd, ^C killing the
foreground job but not a background one, ps and meminfo (read from /proc),
a process's /proc/self/maps, and finally poweroff, which must end QEMU
cleanly. Exit status 0 when every check passes.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

BUILD = os.environ.get("BUILD", "build")
# One command per prompt: typed ahead, the echo of the next line lands in
# the middle of the previous command's output (a pipeline or ps running on
# another CPU), as CI runs saw it split ps's header and put "and-bad" on a
# line of its own inside the echo of "... || echo and-bad".
COMMANDS = [b"echo pagodx\x7fa-pipe | cat | cat\n", b"false; echo status=$?\n",
            b"true && echo and-ok || echo and-bad\n", b"false || echo or-ok\n", b"hello\n",
            b"ls /bin | cat\n", b"cd /dev; ls | cat; cd ..\n", b"sleep 60 &\n",
            b'echo before"-"sleep; sleep 60; echo after"-"sleep status=$?\n']
SESSION = [("$ ", 0, c) for c in COMMANDS] + [
    # ^C once the foreground sleep runs: it dies (128 + SIGINT), the shell
    # and the background sleep (SIGINT ignored) live on. (The quotes keep the
    # echo of the typed line from matching the markers.)
    ("before-sleep", 2.0, b"\x03"),
    ("after-sleep", 0, b""),
    ("$ ", 0, b"ps\n"),
    ("SHPT NAME", 0, b""),
    ("$ ", 0, b"meminfo\n"),
    ("SharedPT:", 0, b""),
    ("$ ", 0, b"cat /proc/self/maps\n"),
    ("[stack]", 0, b""),
    ("$ ", 0, b"poweroff\n"),
]
EXPECT = [
    "pagoda-pipe",
    "status=1",
    "and-ok",
    "or-ok",
    "hello",
    "usertests",
    "console",
    "before-sleep",
    "^C",
    "after-sleep status=130",
    "  PID  PPID S      VSZ      RSS      PSS     LAZY   PT SHPT NAME",
    " sleep",
    "MemTotal:",
    "SharedPT:",
    "pgfault ",
    "ptshare                         pd",
    " r-xp 00001000 00:10 ",   # the root tmpfs: 00:10, as Linux numbers its first
    "/bin/cat",
    "[stack]",
    "power off",
]


def main():
    iso = os.path.join(BUILD, "test", "shell.iso")
    os.makedirs(os.path.dirname(iso), exist_ok=True)
    subprocess.run([os.path.join(driver.ROOT, "tools", "mkiso.sh"),
                    os.path.join(BUILD, "kernel.elf"), os.path.join(BUILD, "initrd.tar"),
                    "", iso], check=True)
    res = driver.run_qemu(iso, mem="256M", timeout=60, input_data=SESSION)
    with open(os.path.join(BUILD, "test", "shell.log"), "w") as f:
        f.write(res.log)
    failures = []
    if "$ " not in res.log:
        failures.append("no '$ ' prompt")
    at = res.log.find("pagoda: started")
    for want in EXPECT:
        pos = res.log.find(want, at)
        if pos < 0:
            failures.append("missing %r in the output" % want)
        else:
            at = pos
    if any(ln.strip().lstrip("$ ") == "and-bad" for ln in res.log.split("\n")):
        failures.append("'&&' ran after a true command's '||' branch")
    if "PANIC" in res.log or "KERNEL FAULT" in res.log:
        failures.append("the kernel died")
    if "poweroff: " in res.log[res.log.find("pagoda: power off"):]:
        failures.append("poweroff printed an error: reboot(2) returned after power off")
    if res.exit_status != 0:
        failures.append("QEMU exit status %s after poweroff, want 0" % res.exit_status)
    for f in failures:
        print("shell session:", f)
    print("shell session:", "PASS" if not failures else "FAIL (log: %s/test/shell.log)" % BUILD)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
