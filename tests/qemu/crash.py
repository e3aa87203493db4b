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

The disk is a volatile write cache, as real disks are: QEMU's
blklogwrites driver logs every write and FLUSH the guest sends
(tests/qemu/writelog.py), and after the kill the image is rebuilt from
its state at boot: every write up to the last FLUSH, then each later
write kept or lost at random (a cache loses what it was not told to
flush). The checks above run on that image -- so a DURABLE printed before
its FLUSH completed, or a FLUSH sent before the writes it must cover,
fails them -- and the log itself is checked first: replayed whole, it
must give exactly the image QEMU wrote. The same is checked at two
earlier moments of each run, as if the power had gone just after the
disk's k-th FLUSH (k at random): crashload prints with each DURABLE line
how many flushes the disk had completed (/proc/diskstats), so the files
that must be intact at flush k are known exactly -- those of this run
with a count up to k, and the earlier runs' that this run has not begun
to remove. Sending a FLUSH before the writes it covers (fsync's commit
moved before its write-back) fails this within a run or two.

The next run mounts the repaired image (a new generation directory), so
the earlier durable files must also survive later runs. A failure prints the seed: --seed N --runs R replays the same workloads
and kill points (the exact moment of a kill depends on the host's speed).
`make test` runs 3 power-offs, `make fuzz` 50 (tools/fuzz.py).
"""
import argparse
import os
import random
import re
import select
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "qemu"))
import disks  # noqa: E402  (pattern(): the bytes user/crashload.c writes)
import writelog  # noqa: E402

# Whole lines only (a kill may cut the last one short: a promise not yet made).
LINE = re.compile(r"^(?:(DURABLE) (\S+) (\d+) (\d+)(?: (\d+))?|(REMOVING|REMOVED|REMOVED-ALL) (\S+))\n",
                  re.M)
FLUSH_POINTS = 2   # earlier moments of each run checked too (lose_cache_at)


def make_image(build, path, block):
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", str(block), "-d",
                    os.path.join(build, "rootfs"), path, "64M"], check=True, stdout=subprocess.DEVNULL)


def logged_disk(img, wlog):
    """QEMU's options for img as the first virtio disk, every request
    logged to wlog (a new log: blklogwrites writes its super)."""
    with open(wlog, "wb"):
        pass
    return ["-blockdev", "driver=file,filename=%s,node-name=img0" % img,
            "-blockdev", "driver=file,filename=%s,node-name=log0" % wlog,
            "-blockdev", "driver=blklogwrites,node-name=vda,file=img0,log=log0,log-append=off",
            "-device", "virtio-blk-pci,drive=vda"]


def stop_vm(sock_path):
    """Pause the guest through QEMU's monitor and wait until the command
    is done: vm_stop drains the block layer, so every write the guest had
    in flight reaches both the image and the write log. (A SIGKILL alone
    can land between QEMU's write to the image and its log entry, and the
    log would then not replay to the image.) False if the monitor did not
    answer (then the kill goes ahead anyway)."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as m:
            m.settimeout(10)
            m.connect(sock_path)
            got = b""
            while b"(qemu)" not in got:
                got += m.recv(4096) or b"(qemu)"
            m.sendall(b"stop\n")
            got = b""
            while b"(qemu)" not in got:   # the next prompt: stop has returned
                chunk = m.recv(4096)
                if not chunk:
                    return False
                got += chunk
        return True
    except OSError:
        return False


def boot_and_kill(build, disk_args, iso, cpus, rng, log):
    """Boot until a random count of files is durable, wait a random moment,
    stop the guest (stop_vm) and kill QEMU. Returns the console text."""
    want = rng.randint(1, 25)
    delay = rng.random() * 0.4
    monitor = os.path.join(tempfile.gettempdir(), "pagoda-crash-%d.monitor" % os.getpid())
    if os.path.exists(monitor):
        os.remove(monitor)
    cmd = [os.path.join(ROOT, "tools", "qemu.sh"), "-m", "128M", "-cdrom", iso, "-display", "none",
           "-serial", "stdio", "-monitor", "unix:%s,server=on,wait=off" % monitor] + disk_args
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
        if p.poll() is None and not stop_vm(monitor):
            print("crash: the monitor did not stop the guest: killed running", file=sys.stderr)
        p.kill()
        out += p.communicate()[0] or b""
        if os.path.exists(monitor):
            os.remove(monitor)
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


def lose_cache(img, base, wlog, rng):
    """img becomes what a disk with a volatile cache may hold after the
    kill: base (img at boot) + the log's writes up to its last FLUSH + a
    random half of the later ones. First the log must replay to exactly
    the image QEMU wrote. Returns a line about it."""
    ents = writelog.entries(wlog)
    whole = img + ".whole"
    subprocess.run(["cp", "--sparse=always", base, whole], check=True)
    writelog.replay(whole, ents, rng, "all")
    same = subprocess.run(["cmp", "-s", whole, img]).returncode == 0
    os.remove(whole)
    if not same:
        raise Failure("the write log (%s) does not replay to the image QEMU wrote" % wlog)
    subprocess.run(["cp", "--sparse=always", base, img], check=True)
    before, after, kept = writelog.replay(img, ents, rng)
    return "%d flushes, %d writes before the last, %d of %d after it kept" % (
        writelog.flushes(ents), before, kept, after)


def promised_by(text, durable_before, flush):
    """{path: (size, seed)} that must be intact on a disk that kept what came
    before its flush-th FLUSH of this run: the files this run declared
    durable by then (their F <= flush), and those of earlier runs it has
    not started to remove."""
    touched = set()
    out = {}
    for m in LINE.finditer(text):
        if m.group(1) and m.group(5) is not None and int(m.group(5)) <= flush:
            out[m.group(2)] = (int(m.group(3)), int(m.group(4)))
        elif not m.group(1):
            touched.add(m.group(7))
    for path, v in durable_before.items():
        out.setdefault(path, v)
    return {p: v for p, v in out.items()
            if p not in touched and not any(p.startswith(t + "/") for t in touched)}


def lose_cache_at(img, base, wlog, rng, text, durable_before, tmp):
    """The same at FLUSH_POINTS earlier moments of the run: the disk kept
    what came before a random FLUSH k (and some writes after it); e2fsck
    repairs it and every file promised by then reads back. Returns the
    flushes checked."""
    ents = writelog.entries(wlog)
    n = writelog.flushes(ents)
    points = sorted(rng.sample(range(1, n + 1), min(FLUSH_POINTS, n)))
    for k in points:
        at = os.path.join(tmp, "at-flush.img")
        subprocess.run(["cp", "--sparse=always", base, at], check=True)
        writelog.replay(at, ents, rng, flush=k)
        e2fsck(at)
        try:
            verify(at, promised_by(text, durable_before, k), {})
        except Failure as e:
            raise Failure("on the disk as it was at flush %d of %d: %s" % (k, n, e))
        os.remove(at)
    return points


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
        kind, path = (m.group(1), m.group(2)) if m.group(1) else (m.group(6), m.group(7))
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
            # the flusher writes the never-synced noise back within a second,
            # so the disk's cache holds writes no FLUSH has covered at the kill
            args = ("root=/dev/vda dirty_expire=200 dirty_writeback=1000 init=/bin/crashload "
                    "initargs=-s,%d,-g,%d" % (rng.randrange(1 << 30), run))
            subprocess.run([os.path.join(ROOT, "tools", "mkiso.sh"), os.path.join(a.build, "kernel.elf"),
                            os.path.join(a.build, "initrd.tar"), args, iso], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            log = os.path.join(tdir, "%s-%d.log" % (a.name, run))
            base, wlog = img + ".boot", os.path.join(tdir, a.name + ".wlog")
            subprocess.run(["cp", "--sparse=always", img, base], check=True)
            text, want, delay = boot_and_kill(a.build, logged_disk(img, wlog), iso, a.cpus, rng, log)
            died = [ln for ln in text.split("\n") if ln.startswith(("PANIC", "KERNEL FAULT", "crashload: FAIL"))]
            if died:
                raise Failure("run %d: %s (log %s)" % (run, died[0], log))
            with tempfile.TemporaryDirectory() as tmp:
                points = lose_cache_at(img, base, wlog, rng, text, dict(durable), tmp)
            account(text, durable, limbo)
            cache = lose_cache(img, base, wlog, rng)
            cache += ", and at flushes %s" % ",".join(map(str, points))
            os.remove(base)
            os.remove(wlog)
            fixed = e2fsck(img)
            with open(log, "a") as f:
                f.write("\n--- e2fsck -fy\n" + fixed)
            verify(img, durable, limbo)
            repairs = len([ln for ln in fixed.split("\n") if ln.endswith("yes") or "Fix? yes" in ln])
            print("crash: run %d killed %.2fs after %d durable files; cache lost: %s; e2fsck -fy: "
                  "%d fixes; %d durable files intact" % (run, delay, want, cache, repairs, len(durable)))
    except Failure as e:
        print("crash: FAIL seed %d run %d: %s" % (seed, run, e))
        print("crash: replay: tests/qemu/crash.py --build %s --seed %d --runs %d" % (a.build, seed, run + 1))
        return 1
    print("crash: PASS seed %d, %d power-offs, %d durable files intact" % (seed, a.runs, len(durable)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
