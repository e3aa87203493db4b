#!/usr/bin/env python3
"""tests/qemu/crash.py -- ext2's crash promise: power off at any moment.

    crash.py [--build build] [--runs 3] [--seed N] [--cpus 2]

ext2 has no journal, so Pagoda promises what Linux's ext2 promises: after
a power-off at any moment, `e2fsck -fy` repairs the image, and every file
that was fsync'd (with its directory fsync'd) before the power-off reads
back intact. This test keeps that promise honest. One ext2 image
(build/test/poweroff.img, made by mke2fs -d from the root tree, 1 or 4 KiB
blocks by the seed) is the root file system of RUNS boots in a row; each
boots `init=/bin/crashload` (user/crashload.c: files written, fsync'd,
renamed, unlinked, with noise that is never synced) and is killed
(SIGKILL to QEMU: the guest gets no warning) a random time after a
random number of its files became durable. After every kill:

  1. e2fsck -fy repairs the image (exit status 0 or 1), then e2fsck -fn
     must find it clean (0);
  2. every file any run declared DURABLE (and did not remove: a run
     removes the files of the run three before it) reads back with
     debugfs as exactly the bytes written; a file between REMOVING and
     REMOVED is absent or intact;
  3. the guest printed no PANIC / KERNEL FAULT.

The next run mounts the repaired image (a new generation directory), so
the earlier durable files must also survive later runs. QEMU writes the
image with pwrite (cache=writeback): what the guest wrote reaches the host
file before the kill, so this tests what the kernel wrote and when, not
the host's cache. A failure prints the seed: --seed N --runs R replays the same workloads
and kill points (the exact moment of a kill depends on the host's speed).
`make test` runs 3 power-offs, `make fuzz` 50 (tools/fuzz.py).
"""
import argparse
import os
import random
import re
import select
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import disks  # noqa: E402  (pattern(): the bytes user/crashload.c writes)

# Whole lines only (a kill may cut the last one short: a promise not yet made).
LINE = re.compile(r"^(?:(DURABLE) (\S+) (\d+) (\d+)|(REMOVING|REMOVED|REMOVED-ALL) (\S+))\n", re.M)


def make_image(build, path, block):
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", str(block), "-d",
                    os.path.join(build, "rootfs"), path, "64M"], check=True, stdout=subprocess.DEVNULL)


def boot_and_kill(build, img, iso, cpus, rng, log):
    """Boot until a random count of files is durable, wait a random moment,
    kill QEMU. Returns the console text."""
    want = rng.randint(1, 25)
    delay = rng.random() * 0.4
    cmd = [os.path.join(ROOT, "tools", "qemu.sh"), "-m", "128M", "-cdrom", iso, "-display", "none",
           "-serial", "stdio", "-monitor", "none",
           "-drive", "file=%s,if=none,format=raw,id=vda" % img, "-device", "virtio-blk-pci,drive=vda"]
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, env=dict(os.environ, CPUS=str(cpus)))
    out, deadline, kill_at = b"", time.time() + 180, None
    try:
        while time.time() < deadline and p.poll() is None:
            if kill_at and time.time() >= kill_at:
                break
            r, _, _ = select.select([p.stdout], [], [], 0.02)
            if r:
                chunk = os.read(p.stdout.fileno(), 65536)
                out += chunk
                if kill_at is None and out.count(b"\nDURABLE ") >= want:
                    kill_at = time.time() + delay
    finally:
        p.kill()
        out += p.communicate()[0] or b""
    text = out.decode("utf-8", "replace").replace("\r", "")
    with open(log, "w") as f:
        f.write(text)
    if kill_at is None:
        raise Failure("the workload never made %d files durable (log %s)" % (want, log))
    return text, want, delay


class Failure(Exception):
    pass


def e2fsck(img):
    fix = subprocess.run(["e2fsck", "-fy", img], capture_output=True, text=True)
    if fix.returncode not in (0, 1):
        raise Failure("e2fsck -fy exit %d:\n%s" % (fix.returncode, fix.stdout[-3000:]))
    check = subprocess.run(["e2fsck", "-fn", img], capture_output=True, text=True)
    if check.returncode != 0:
        raise Failure("e2fsck -fn after -fy exit %d:\n%s" % (check.returncode, check.stdout[-3000:]))
    return fix.stdout


def dump_all(img, paths, tmp):
    """{path: bytes or None} of the image's files, one debugfs run."""
    cmds = os.path.join(tmp, "cmds")
    with open(cmds, "w") as f:
        for i, path in enumerate(paths):
            f.write("dump %s %s/%d\n" % (path, tmp, i))
    subprocess.run(["debugfs", "-f", cmds, img], capture_output=True)
    out = {}
    for i, path in enumerate(paths):
        name = "%s/%d" % (tmp, i)
        out[path] = open(name, "rb").read() if os.path.exists(name) else None
        if os.path.exists(name):
            os.remove(name)
    return out


def account(text, durable, limbo):
    """Fold one run's console lines into durable {path: (size, seed)} and limbo."""
    for m in LINE.finditer(text):
        kind, path = (m.group(1), m.group(2)) if m.group(1) else (m.group(5), m.group(6))
        size, seed = m.group(3), m.group(4)
        if kind == "DURABLE":
            durable[path] = (int(size), int(seed))
        elif kind == "REMOVING":
            if path in durable:   # (not a temporary name a kill left behind)
                limbo[path] = durable.pop(path)
        elif kind == "REMOVED":
            limbo.pop(path, None)
        else:
            for p in [p for p in limbo if p.startswith(path + "/")]:
                limbo.pop(p)


def verify(img, durable, limbo):
    with tempfile.TemporaryDirectory() as tmp:
        got = dump_all(img, sorted(durable) + sorted(limbo), tmp)
    for path, (size, seed) in durable.items():
        data = got[path]
        if data is None:
            raise Failure("durable %s is gone" % path)
        if data != disks.pattern(size, seed):
            raise Failure("durable %s: %d bytes read, %d of seed %d written%s" % (
                path, len(data), size, seed, "" if len(data) != size else " (bytes differ)"))
    for path, (size, seed) in list(limbo.items()):
        if got[path] is not None and got[path] != disks.pattern(size, seed):
            raise Failure("%s (being removed) is neither gone nor intact" % path)
        limbo.pop(path)   # settled either way: the next run's checks skip it


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--name", default="poweroff")   # build/test/NAME.img, NAME-RUN.log
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1, 1 << 30)
    rng = random.Random(seed)
    tdir = os.path.join(a.build, "test")
    os.makedirs(tdir, exist_ok=True)
    img, iso = os.path.join(tdir, a.name + ".img"), os.path.join(tdir, a.name + ".iso")
    block = rng.choice((1024, 4096))
    make_image(a.build, img, block)
    durable, limbo = {}, {}
    print("crash: seed %d, %d power-offs, %d-byte blocks" % (seed, a.runs, block))
    try:
        for run in range(a.runs):
            args = "root=/dev/vda init=/bin/crashload initargs=-s,%d,-g,%d" % (rng.randrange(1 << 30), run)
            subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), os.path.join(a.build, "kernel.elf"),
                            os.path.join(a.build, "initrd.tar"), args, iso], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            log = os.path.join(tdir, "%s-%d.log" % (a.name, run))
            text, want, delay = boot_and_kill(a.build, img, iso, a.cpus, rng, log)
            died = [ln for ln in text.split("\n") if ln.startswith(("PANIC", "KERNEL FAULT", "crashload: FAIL"))]
            if died:
                raise Failure("run %d: %s (log %s)" % (run, died[0], log))
            account(text, durable, limbo)
            fixed = e2fsck(img)
            with open(log, "a") as f:
                f.write("\n--- e2fsck -fy\n" + fixed)
            verify(img, durable, limbo)
            repairs = len([ln for ln in fixed.split("\n") if ln.endswith("yes") or "Fix? yes" in ln])
            print("crash: run %d killed %.2fs after %d durable files; e2fsck -fy: %d fixes; "
                  "%d durable files intact" % (run, delay, want, repairs, len(durable)))
    except Failure as e:
        print("crash: FAIL seed %d run %d: %s" % (seed, run, e))
        print("crash: replay: tests/qemu/crash.py --build %s --seed %d --runs %d" % (a.build, seed, run + 1))
        return 1
    print("crash: PASS seed %d, %d power-offs, %d durable files intact" % (seed, a.runs, len(durable)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
