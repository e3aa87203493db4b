#!/usr/bin/env python3
"""tests/qemu/driver.py -- boot Pagoda once in QEMU and judge the run.

    driver.py --iso build/test/x.iso [--mem 128M] [--timeout 120] [--log F]
              [--input FILE]

Reads the serial console line by line (protocol in kernel/ktest.h) and prints
one line per in-kernel test plus a verdict. The run FAILS on: a PANIC or
KERNEL FAULT line, a second boot banner (reboot, e.g. a triple fault), a
timeout, a missing "KTEST END" marker, any "TEST ... FAIL" line, or a QEMU exit
status other than 33 (isa-debug-exit pass code).

Importable: run_qemu() returns a Result that tests/run_tests.py uses.
"""
import argparse
import calendar
import os
import re
import select
import subprocess
import sys
import time

BANNER = "Pagoda 0.1 (x86_64) booting"
EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 33, 35, 37
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Result:
    def __init__(self):
        self.tests = []        # (name, passed, detail)
        self.failure = None    # why the run as a whole failed, or None
        self.exit_status = None
        self.log = ""

    @property
    def ok(self):
        return self.failure is None


RTC_LINE = re.compile(r"^time: (\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d) UTC from the RTC", re.M)


def rtc_check(res, started):
    """The wall clock the kernel read from QEMU's RTC at boot is the host's
    UTC time then (between QEMU's start and now, a second of rounding
    aside): test boot.rtc_time of every run that prints it."""
    m = RTC_LINE.search(res.log)
    if m:
        guest = calendar.timegm(tuple(int(x) for x in m.groups()) + (0, 0, 0))
        ok = started - 2 <= guest <= time.time() + 2
        res.tests.append(("boot.rtc_time", ok, "" if ok else "RTC said %d, host clock %d..%d"
                          % (guest, started, time.time())))


def run_qemu(iso, mem="256M", timeout=120, input_data=None, extra=(), cpus=None):
    """Boot iso, collect the serial output, and judge it. input_data is typed
    on the serial console: bytes once the first "$ " prompt shows, or a list
    of steps (wait_text, delay_s, data): once wait_text appears in the output
    after the previous step's point, wait delay_s seconds, then type data.
    cpus: guest CPUs (tools/qemu.sh's CPUS; None keeps the environment's)."""
    res = Result()
    started = time.time()
    cmd = [os.path.join(ROOT, "tools", "qemu.sh"), "-m", mem, "-cdrom", iso,
           "-display", "none", "-serial", "stdio", "-monitor", "none"] + list(extra)
    env = dict(os.environ, **({"CPUS": str(cpus)} if cpus else {}))
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=env)
    out = b""
    banners = 0
    deadline = time.time() + timeout
    steps = [] if input_data is None else \
        [("$ ", 0, input_data)] if isinstance(input_data, bytes) else list(input_data)
    seen = 0   # output offset where the next step's wait_text is looked for
    ended = False
    try:
        while True:
            left = deadline - time.time()
            if left <= 0:
                res.failure = "timeout after %ds (no exit from QEMU)" % timeout
                break
            r, _, _ = select.select([p.stdout], [], [], min(left, 0.5))
            if r:
                chunk = os.read(p.stdout.fileno(), 65536)
                if not chunk:
                    break
                out += chunk
                text = out.decode("utf-8", "replace")
                banners = text.count(BANNER)
                if banners > 1:
                    res.failure = "machine rebooted (second boot banner: triple fault?)"
                    break
                while steps and text.find(steps[0][0], seen) >= 0:
                    wait_text, delay, data = steps.pop(0)
                    seen = text.find(wait_text, seen) + len(wait_text)
                    time.sleep(delay)
                    p.stdin.write(data)
                    p.stdin.flush()
            elif p.poll() is not None:
                break
    finally:
        if p.poll() is None:
            p.kill()
        rest = p.communicate()[0] or b""
        out += rest
        res.exit_status = p.returncode
    res.log = out.decode("utf-8", "replace").replace("\r", "")
    lines = res.log.split("\n")
    for ln in lines:
        m = re.match(r"TEST (\S+) (PASS|FAIL)\s*(.*)", ln)
        if m:
            res.tests.append((m.group(1), m.group(2) == "PASS", m.group(3)))
        if ln.startswith("KTEST END"):
            ended = True
    rtc_check(res, started)
    if res.failure is None:
        panic = next((l for l in lines if l.startswith(("PANIC", "KERNEL FAULT"))), None)
        if panic:
            res.failure = "kernel died: " + panic.strip()
        elif banners == 0:
            res.failure = "no boot banner (kernel did not start)"
        elif not ended:
            res.failure = "no KTEST END marker (exit status %s)" % res.exit_status
        elif any(not t[1] for t in res.tests):
            res.failure = "%d test(s) failed" % sum(1 for t in res.tests if not t[1])
        elif res.exit_status != EXIT_PASS:
            res.failure = "QEMU exit status %s, expected %d" % (res.exit_status, EXIT_PASS)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iso", required=True)
    ap.add_argument("--mem", default="256M")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--log")
    ap.add_argument("--input", help="file fed to the console at the first prompt")
    a = ap.parse_args()
    data = open(a.input, "rb").read() if a.input else None
    res = run_qemu(a.iso, a.mem, a.timeout, data)
    if a.log:
        open(a.log, "w").write(res.log)
    for name, ok, detail in res.tests:
        print("%-40s %s %s" % (name, "ok" if ok else "FAIL", detail))
    print("verdict:", "PASS" if res.ok else "FAIL: " + res.failure)
    sys.exit(0 if res.ok else 1)


if __name__ == "__main__":
    main()
