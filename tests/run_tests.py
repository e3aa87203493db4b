#!/usr/bin/env python3
"""tests/run_tests.py -- everything `make test` runs, with one summary line.

1. host unit tests: every build/unit/test_* binary (Check, under ASan/UBSan);
2. QEMU runs listed in tests/suites.txt (two at a time), judged by
   tests/qemu/driver.py;
3. extra test scripts listed in tests/scripts.txt (e.g. the gdb batch
   tests), one at a time beside step 2, reported after it.

Prints one line per test and ends with "N passed, N failed"; exits 1 on any
failure. --only NAME[,NAME] restricts step 2/3 to those runs. --kernel ELF
boots another kernel (e.g. a PARAVIRT=0 build) with the same initrd, and
--tag T names its runs T-NAME so their logs do not overwrite the main run's.
--suites FILE reads the QEMU runs from another table of the same format
(make check-bigfiles: tests/bigfiles.txt, runs too big for make test).
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import disks  # noqa: E402
import driver  # noqa: E402

results = []   # (name, ok, detail)
durations = []  # (seconds, name): each QEMU run and script, for the slowest-runs line


def record(name, ok, detail=""):
    results.append((name, ok, detail))
    print("%s %s%s" % ("PASS" if ok else "FAIL", name, ("  -- " + detail) if detail else ""),
          flush=True)


def run_unit(build):
    bins = sorted(glob.glob(os.path.join(build, "unit", "test_*")))
    bins = [b for b in bins if os.access(b, os.X_OK) and not b.endswith((".o", ".d"))]
    if not bins:
        record("unit", False, "no unit test binaries in %s/unit" % build)
    # CK_DEFAULT_TIMEOUT: Check's 4 s per test is a hang guard, not a speed
    # limit; under ASan on a loaded 2-core machine some tests need longer.
    env = dict(os.environ, CK_VERBOSITY="verbose", CK_FORK="yes", CK_DEFAULT_TIMEOUT="60",
               ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    for b in bins:
        p = subprocess.run([b], capture_output=True, text=True, env=env, timeout=300)
        out = p.stdout + p.stderr
        seen = 0
        for m in re.finditer(r"^[^:\n]+:\d+:([PFE]):([^:]+):([^:]+):\d+: ?(.*)$", out, re.M):
            seen += 1
            record("unit/%s/%s" % (os.path.basename(b)[5:], m.group(3)), m.group(1) == "P",
                   "" if m.group(1) == "P" else m.group(4))
        if p.returncode != 0 or seen == 0:
            tail = "\n".join(out.strip().split("\n")[-15:])
            record("unit/%s" % os.path.basename(b), False,
                   "exit status %d, %d checks parsed\n%s" % (p.returncode, seen, tail))


def parse_table(path, fields=0):
    """Rows of a |-separated table; with fields, the last field takes the
    rest of the line (a shell command may hold | itself)."""
    rows = []
    if not os.path.exists(path):
        return rows
    for ln in open(path):
        ln = ln.split("#", 1)[0].strip() if not ln.lstrip().startswith("#") else ""
        if ln:
            rows.append([f.strip() for f in ln.split("|", fields - 1)])
    return rows


KERNEL = None   # --kernel: the ELF to boot instead of BUILD/kernel.elf


def make_iso(build, name, cmdline):
    iso = os.path.join(build, "test", name + ".iso")
    os.makedirs(os.path.dirname(iso), exist_ok=True)
    subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"),
                    KERNEL or os.path.join(build, "kernel.elf"),
                    os.path.join(build, "initrd.tar"), cmdline, iso], check=True)
    return iso


def run_suite(build, row):
    name, cmdline, mem, expect = row[:4]
    timeout = int(row[4]) if len(row) > 4 and row[4] else 180
    cpus = row[5] if len(row) > 5 and row[5] else None
    disk_spec = row[6] if len(row) > 6 else ""
    t0 = time.time()
    iso = make_iso(build, name, cmdline)
    extra = disks.prepare(build, name, disk_spec) if disk_spec else []
    res = driver.run_qemu(iso, mem=mem, timeout=timeout, cpus=cpus, extra=extra)
    if disk_spec:
        res.tests += disks.verify(build, name, res.log, disk_spec)
    with open(os.path.join(build, "test", name + ".log"), "w") as f:
        f.write(res.log)
    durations.append((time.time() - t0, name))
    return name, expect, res


def report_suite(build, name, expect, res):
    log = os.path.join(build, "test", name + ".log")
    if expect == "pass":
        for t, ok, detail in res.tests:
            record("%s/%s" % (name, t), ok, detail)
        if not res.ok:
            record(name, False, "%s (log: %s)" % (res.failure, log))
    else:
        want = expect[len("fail:"):]
        if res.ok:
            record(name, False, "expected the run to fail with '%s' but it passed" % want)
        elif want not in (res.failure or "") and want not in res.log:
            record(name, False, "expected '%s', driver said: %s (log: %s)" % (want, res.failure, log))
        else:
            record(name, True, "driver reported: " + res.failure)


def run_script(build, name, cmd):
    t0 = time.time()
    p = subprocess.run(cmd, shell=True, cwd=ROOT, capture_output=True, text=True,
                       env=dict(os.environ, BUILD=build))
    durations.append((time.time() - t0, name))
    out = (p.stdout + p.stderr).strip()
    with open(os.path.join(build, "test", name + ".log"), "w") as f:
        f.write(out)
    return name, p.returncode, out


def run_scripts(build, only):
    """The scripts of tests/scripts.txt one after another (some make
    things in the build folder, so never two at once): a list of
    (name, returncode, output)."""
    rows = [r for r in parse_table(os.path.join(ROOT, "tests", "scripts.txt"), fields=2)
            if not only or r[0] in only]
    return [run_script(build, r[0], r[1]) for r in rows]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--kernel", default=None)
    ap.add_argument("--tag", default="")
    ap.add_argument("--suites", default=os.path.join(ROOT, "tests", "suites.txt"),
                    help="the table of QEMU runs (make check-bigfiles: tests/bigfiles.txt)")
    a = ap.parse_args()
    global KERNEL
    KERNEL = a.kernel
    only = set(filter(None, a.only.split(",")))
    os.makedirs(os.path.join(a.build, "test"), exist_ok=True)
    if not only:
        run_unit(a.build)
    rows = [r for r in parse_table(a.suites)
            if not only or r[0] in only]
    if a.tag:
        rows = [["%s-%s" % (a.tag, r[0])] + r[1:] for r in rows]
    # The scripts run beside the QEMU suites (one at a time, in their own
    # thread): most of them are short and wait on something (gdb, a build).
    with concurrent.futures.ThreadPoolExecutor(1) as sx:
        scripts = sx.submit(run_scripts, a.build, only)
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            for name, expect, res in ex.map(lambda r: run_suite(a.build, r), rows):
                report_suite(a.build, name, expect, res)
        for name, rc, out in scripts.result():
            record(name, rc == 0, "" if rc == 0 else "\n".join(out.split("\n")[-20:]))
    with open(os.path.join(a.build, "test", "durations.txt"), "w") as f:
        f.write("".join("%6.0f %s\n" % (d, n) for d, n in sorted(durations, reverse=True)))
    slow = sorted(durations, reverse=True)[:12]
    if slow:
        print("slowest runs: " + ", ".join("%s %.0fs" % (n, d) for d, n in slow))
    passed = sum(1 for r in results if r[1])
    failed = len(results) - passed
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
