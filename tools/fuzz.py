#!/usr/bin/env python3
"""tools/fuzz.py -- `make fuzz`: the randomized testers, long, with new seeds.

    tools/fuzz.py [--build build] [--minutes 30] [--seed N] [--jobs 2] [--only NAMES]

Boots Pagoda once per (tester, mode): the VM tester (user/vmtester.c) and the
system-call fuzzer (user/sysfuzz.c) under ptshare=pd (the default),
ptshare=fork, ptshare=all, ptshare=off and pv=checked, and the VM tester with threads
(vmthreads: -t 4 workers, -r 2 helpers, on 4 CPUs) under ptshare=pd,
ptshare=all and with processes on every CPU (smp_sched=1), and the system-call
fuzzer threaded (systhreads: -t 4 threads in each of -P 3 processes at once,
-m a memory hog keeping reclaim busy) in the same three modes, and the
file-system tester (user/fstester.c, on /tmp's tmpfs, 4 CPUs), and the VM
tester with its scratch file on an ext2 root (vmext2: 4 CPUs, ptshare=pd and
fork; the host then compares the file in the image with the model's hash
and runs e2fsck), the VM tester over swap (vmswap: a 64 MiB window and
its model with 48 MiB of RAM and a 256 MiB swap disk, ptshare=pd and fork),
each running seeds
SEED, SEED+1, ... for its share of the time (-T), JOBS boots at a time; then
the testers on the Linux host (host mode: sysfuzz's allowlist), the
ext2 image fuzzer (tests/unit/test_ext2.c's damage case), the VFS model
test (tests/unit/test_vfs.c's model case), and the crash test
(tests/qemu/crash.py: CRASH_RUNS power-offs of one ext2 root, ~4 s each,
beside the rest: it adds about that to the time). The
time is split evenly over the boots, the host runs get a small share. The
base seed is new every run (the time) unless --seed is given; each boot gets
its own range of seeds. Prints one line per run with its seeds, steps/calls
and operations checked, a total, and ends "N passed, N failed"; a failing run
prints the tester's FAIL and replay lines (logs: BUILD/fuzz/NAME.log).

--only runs some of them alone for the whole time (a comma list of vmtester,
sysfuzz, vmthreads, systhreads, fstester, vmext2, vmswap, ext2, vfs, crash; no host runs):
`make fuzz FUZZ_ONLY=ext2 FUZZ_MINUTES=30` is the image fuzzer for half an hour.
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import disks  # noqa: E402
import driver  # noqa: E402

MODES = [("pd", ""), ("fork", "ptshare=fork vmcheck"), ("all", "ptshare=all vmcheck"),
         ("off", "ptshare=off"), ("pvchecked", "pv=checked")]
# tester -> (program, extra arguments, memory, modes (None: MODES), CPUs (None: the default),
# root disk (None: none; else the ext2 disk of tests/qemu/disks.py that is the root, the
# tester's files on it, checked from the host after the boot; no host run))
THREAD_MODES = [("pd", ""), ("all", "ptshare=all vmcheck"), ("smp", "smp_sched=1 vmcheck")]
TESTERS = {"vmtester": ("vmtester", "-n,2000", "64M", None, None, None),
           "sysfuzz": ("sysfuzz", "-n,3000", "128M", None, None, None),
           "vmthreads": ("vmtester", "-n,500,-w,2,-t,4,-r,2", "128M", THREAD_MODES, 4, None),
           "systhreads": ("sysfuzz", "-n,3000,-t,4,-P,3,-m", "128M", THREAD_MODES, 4, None),
           "fstester": ("fstester", "-n,3000,-P,3", "256M", [("tmpfs", "")], 4, None),
           "vmext2": ("vmtester", "-n,1000,-d,/,-k", "64M",
                      [("pd", "vmcheck"), ("fork", "ptshare=fork vmcheck")], 4, "vda:64M:ext2:fsck"),
           "vmswap": ("vmtester", "-n,600,-w,64,-S,/dev/vda", "48M",
                      [("pd", "vmcheck"), ("fork", "ptshare=fork vmcheck")], 2, "vda:256M:swap")}
SEEDS_PER_RUN = 1000000    # each run's seeds start this far apart
SUMMARY = re.compile(r"^(vmtester|sysfuzz|fstester|ext2|vfs|crash): PASS seeds (\d+)\.\.(\d+) ?(.*)$", re.M)


def make_iso(build, name, cmdline):
    iso = os.path.join(build, "fuzz", name + ".iso")
    subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), os.path.join(build, "kernel.elf"),
                    os.path.join(build, "initrd.tar"), cmdline, iso], check=True,
                   stdout=subprocess.DEVNULL)
    return iso


def summary(log):
    """(seeds, the counters of the PASS line as a dict) or None."""
    m = SUMMARY.search(log)
    if not m:
        return None
    words = m.group(4).split()
    counts = dict(zip(words[0::2], (int(w) for w in words[1::2])))
    return int(m.group(3)) - int(m.group(2)) + 1, m.group(2), m.group(3), counts


def failure_lines(log):
    return [ln for ln in log.split("\n") if re.search(r"FAIL|replay:|PANIC|KERNEL FAULT", ln)][:6]


def run_boot(build, tester, mode, cmdline, seed, seconds):
    prog, args, mem, _, cpus, disk = TESTERS[tester]
    name = "%s-%s" % (tester, mode)
    initargs = "-s,%d,%s,-T,%d" % (seed, args, seconds)
    root = "root=/dev/vda " if disk and "ext2" in disk else ""   # a swap disk is no root
    iso = make_iso(build, name, "test=user %sinit=/bin/%s initargs=%s %s"
                   % (root, prog, initargs, cmdline))
    extra = disks.prepare(build, "fuzz-" + name, disk) if disk else []
    res = driver.run_qemu(iso, mem=mem, timeout=seconds + 600, cpus=cpus, extra=extra)
    bad = [r for r in (disks.verify(build, "fuzz-" + name, res.log, disk) if disk else []) if not r[1]]
    log = res.log + "".join("\nFAIL %s: %s" % (r[0], r[2]) for r in bad)
    with open(os.path.join(build, "fuzz", name + ".log"), "w") as f:
        f.write(log)
    return name, res.ok and not bad, log


def run_host(build, tester, seed, seconds):
    prog, args = TESTERS[tester][:2]
    cmd = [os.path.join(os.path.abspath(build), "rootfs", "bin", prog), "-s", str(seed)] + args.split(",") + \
        ["-T", str(seconds)]
    scratch = os.path.join(build, "fuzz", "%s-host.cwd" % tester)   # what its calls create, removed after
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=scratch, timeout=seconds + 600)
    subprocess.run(["chmod", "-R", "u+rwx", scratch], stderr=subprocess.DEVNULL)
    shutil.rmtree(scratch, ignore_errors=True)
    log = p.stdout + p.stderr
    name = "%s-host" % tester
    with open(os.path.join(build, "fuzz", name + ".log"), "w") as f:
        f.write(log)
    return name, p.returncode == 0, log


# host fuzzers of tests/unit: name -> (test binary, Check case, seed variable,
# seeds variable, what a run's output counts)
UNIT_FUZZERS = {"ext2": ("test_ext2", "damage", "EXT2_SEED", "EXT2_SEEDS", "mounted"),
                "vfs": ("test_vfs", "model", "VFS_SEED", "VFS_SEEDS", None)}


def run_unit_fuzz(build, name, seed, seconds):
    """A host fuzzer of tests/unit under ASan/UBSan -- the ext2 image fuzzer
    (test_ext2's damage case: mke2fs images with random bytes changed,
    mounted, walked, changed and written back) or the VFS model test (test_vfs's model case) -- in
    batches of 200 seeds until `seconds` are used."""
    binary, case, seed_var, seeds_var, counted = UNIT_FUZZERS[name]
    prog = os.path.join(os.path.abspath(build), "unit", binary)
    subprocess.run(["make", "-s", "B=" + build, os.path.join(build, "unit", binary)], check=True,
                   cwd=ROOT, stdout=subprocess.DEVNULL)
    end, s, log, ok, count = time.time() + seconds, seed, "", True, 0
    while ok and time.time() < end:
        env = dict(os.environ, CK_RUN_CASE=case, **{seed_var: str(s), seeds_var: "200"})
        p = subprocess.run([prog], capture_output=True, text=True, env=env, timeout=seconds + 600)
        log += p.stdout + p.stderr
        ok = p.returncode == 0
        m = re.search(r"%s (\d+)" % counted, p.stdout) if counted else None
        count += int(m.group(1)) if m else 0
        s += 200
    extra = " %s %d" % (counted, count) if counted else ""
    log += "%s: PASS seeds %d..%d%s\n" % (name, seed, s - 1, extra) if ok else \
        "%s: FAIL in seeds %d..%d (%s=%d %s=200 CK_RUN_CASE=%s %s)\n" % (
            name, s - 200, s - 1, seed_var, s - 200, seeds_var, case, prog)
    with open(os.path.join(build, "fuzz", name + "-host.log"), "w") as f:
        f.write(log)
    return name + "-host", ok, log


CRASH_RUNS = 50


def run_crash(build, seed):
    """tests/qemu/crash.py: CRASH_RUNS power-offs in a row of one image."""
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "qemu", "crash.py"), "--build", build,
                        "--runs", str(CRASH_RUNS), "--seed", str(seed), "--name", "fuzz-crash"],
                       capture_output=True, text=True, cwd=ROOT)
    log = p.stdout + p.stderr
    if p.returncode == 0:
        log += "crash: PASS seeds %d..%d power-offs %d\n" % (seed, seed, CRASH_RUNS)
    with open(os.path.join(build, "fuzz", "crash.log"), "w") as f:
        f.write(log)
    return "crash", p.returncode == 0, log


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--minutes", type=float, default=30)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    unknown = only - set(TESTERS) - set(UNIT_FUZZERS) - {"crash"}
    if unknown:
        ap.error("--only: no tester %s" % ",".join(sorted(unknown)))
    os.makedirs(os.path.join(a.build, "fuzz"), exist_ok=True)
    base = a.seed if a.seed is not None else int(time.time()) % 1000000 * 1000
    boots = [(t, m, c) for t in TESTERS if not only or t in only for m, c in (TESTERS[t][3] or MODES)]
    units = [n for n in UNIT_FUZZERS if not only or n in only]
    total = a.minutes * 60
    host_seconds = max(10, int(total * 0.05)) if boots else int(total)
    boot_seconds = max(20, int((total - 2 * host_seconds) * a.jobs / len(boots)) - 30) if boots else 0
    print("fuzz: base seed %d, %d boots of %d s (%d at a time), host runs of %d s"
          % (base, len(boots), boot_seconds, a.jobs, host_seconds), flush=True)
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for k, (t, m, c) in enumerate(boots):
            jobs.append(ex.submit(run_boot, a.build, t, m, c, base + k * SEEDS_PER_RUN, boot_seconds))
        for k, t in enumerate(t for t in TESTERS if not only and not TESTERS[t][5]):
            seed = base + (len(boots) + k) * SEEDS_PER_RUN
            jobs.append(ex.submit(run_host, a.build, t, seed, host_seconds))
        if not only or "crash" in only:
            jobs.append(ex.submit(run_crash, a.build, base % 1000000 + 1))
        for name in units:
            jobs.append(ex.submit(run_unit_fuzz, a.build, name, base % 1000000, host_seconds))
        results = [j.result() for j in jobs]
    passed = failed = 0
    totals = {}
    for name, ok, log in results:
        s = summary(log)
        if ok and s:
            passed += 1
            nseeds, first, last, counts = s
            print("PASS %-18s seeds %s..%s (%d): %s" % (name, first, last, nseeds,
                  " ".join("%s %d" % kv for kv in counts.items())))
            tester = name.split("-")[0]
            tot = totals.setdefault(tester, {"seeds": 0})
            tot["seeds"] += nseeds
            for key, v in counts.items():
                tot[key] = tot.get(key, 0) + v
        else:
            failed += 1
            print("FAIL %-18s (log: %s/fuzz/%s.log)" % (name, a.build, name))
            for ln in failure_lines(log):
                print("     " + ln.strip())
    for tester, tot in totals.items():
        print("total %s: %s" % (tester, " ".join("%s %d" % kv for kv in tot.items())))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
