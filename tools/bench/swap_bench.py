#!/usr/bin/env python3
"""tools/bench/swap_bench.py -- make bench-swap: page replacement on Pagoda and
on Debian's Linux in the same QEMU, against Belady's OPT (issue 39).

    swap_bench.py run --build B --out DIR [--mem 128M] [--pages 40960]
                      [--refs-per-page 5] [--swap 512M] [--rounds 1]
        make one swap area with mkswap (B/bench/swap/swap.img), stage the
        static musl `replace` (B/bench/musl) for both kernels, then boot,
        round after round, Linux and Pagoda alternately, each with a fresh
        copy of that area as /dev/vda (tools/bench/disk.sh) and MEM of
        memory; `replace --swapon /dev/vda` turns it on and replays every
        trace (user/bench/bench_trace.h) over PAGES pages; then report
    swap_bench.py report --out DIR
        the table from DIR/results.csv

The table, per trace: major faults and pages read from swap on each kernel,
the frames each kernel let the trace keep (mean RSS of the mapping), and
what OPT, LRU, CLOCK and CLOCK-Pro (tools/bench/replace_sim, on the host,
over the same trace) would read back with that many frames -- their misses less the first
touches, which a kernel serves as zero-fill faults without reading swap. The
goals (the issue's): fewer major faults than Linux on every trace; summed over
the traces, Pagoda's pages read beyond OPT at most half of Linux's
(Pagoda - OPT(Pagoda's frames) <= 0.5 x (Linux - OPT(Linux's frames))); no
page read back wrong; wall time at most Linux's.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench   # noqa: E402

TRACES = ["loop", "uniform", "zipf", "hotcold", "phases", "scan"]
PAGODA_TREE = "swap"            # pagoda.sh's libc=NAME tree of the musl binaries
LINUX_INITRAMFS = "swap.gz"     # linux.sh's LINUX_INITRAMFS
SIM_RE = re.compile(r"^SIM .* frames=(\d+) opt=(\d+) lru=(\d+) clock=(\d+) fifo=(\d+) "
                    r"clockpro=(\d+) twolist=(\d+) first=(\d+)$")


# filemix (user/bench/replace.c): DATA MiB of the disk past its swap area
# read in rounds beside ANON MiB of idle anonymous memory; with 128 MiB of
# RAM the two do not fit together, the data alone does.
FILEMIX_DATA_MIB, FILEMIX_ANON_MIB = 48, 80
FILEMIX_ROUNDS = 6              # user/bench/replace.c FILEMIX_ROUNDS


def mib(size):
    """MiB in a size such as 512M or 1G."""
    return int(size[:-1]) * (1024 if size[-1] in "gG" else 1)


def replace_args(pages, per_page, swap):
    """The suite's --args word of replace."""
    return ("replace=--swapon,/dev/vda,--pages,%d,--refs-per-page,%d,--filemix,/dev/vda:%d:%d:%d"
            % (pages, per_page, mib(swap), FILEMIX_DATA_MIB, FILEMIX_ANON_MIB))


def make_swap(build, size):
    """An empty swap area of `size` as mkswap writes it, and FILEMIX_DATA_MIB
    after it (zeros, not part of the area): the template every boot copies."""
    d = os.path.join(build, "bench", "swap")
    os.makedirs(d, exist_ok=True)
    img = os.path.join(d, "swap.img")
    mkswap = shutil.which("mkswap") or "/sbin/mkswap"
    subprocess.run(["rm", "-f", img], check=True)
    subprocess.run(["truncate", "-s", "%dM" % (mib(size) + FILEMIX_DATA_MIB), img], check=True)
    subprocess.run([mkswap, "-q", "-L", "benchswap", img, str(mib(size) * 1024)], check=True)
    return img


def prepare(build, pages, per_page, swap):
    """Stage the musl replace for Pagoda (tree PAGODA_TREE) and Linux (initramfs)."""
    musl = os.path.join(build, "bench", "musl")
    env = dict(os.environ, BENCH_ARGS="--runs 1")
    subprocess.run([os.path.join(HERE, "pagoda.sh"), "prepare", build, musl, PAGODA_TREE],
                   env=env, check=True)
    env = dict(os.environ, LINUX_INITRAMFS=LINUX_INITRAMFS,
               BENCH_ARGS="--only replace --args %s --runs 1" % replace_args(pages, per_page, swap))
    subprocess.run([os.path.join(HERE, "linux.sh"), "prepare", build, musl], env=env, check=True)


def systems(build, mem, pages, per_page, swap):
    """One round: Linux, then Pagoda, each booting once."""
    return [bench.System("linux", "LINUX_INITRAMFS=%s %s/linux.sh boot %s %s"
                         % (LINUX_INITRAMFS, HERE, build, mem), None, False),
            bench.System("pagoda", "%s/pagoda.sh boot %s %s 'libc=%s' --only replace --args %s"
                         % (HERE, build, mem, PAGODA_TREE, replace_args(pages, per_page, swap)),
                         None, False)]


def simulate(sim, trace, pages, refs, frames):
    """{frames: (opt, lru, clock, clockpro, twolist) pages read back} for each frame count."""
    out = subprocess.run([sim, "--trace", trace, "--pages", str(pages), "--refs", str(refs),
                          "--frames", ",".join(str(f) for f in sorted(set(frames)))],
                         capture_output=True, text=True, check=True).stdout
    res = {}
    for line in out.splitlines():
        m = SIM_RE.match(line)
        if m:
            f, opt, lru, clock, _, cpro, two, first = (int(x) for x in m.groups())
            res[f] = (opt - first, lru - first, clock - first, cpro - first, two - first)
    return res


def cell(data, system, trace, metric):
    c = data.get((system, "replace", trace + "_" + metric))
    return c.median if c else None


def table(data, sim, pages, refs):
    """The report's lines and whether every goal was met."""
    head = ("%-8s %9s %9s  %9s %9s  %7s %7s  %8s %8s %8s %8s %8s %8s  %7s %7s"
            % ("trace", "majflt L", "majflt P", "pswpin L", "pswpin P", "rss L", "rss P",
               "OPT@L", "OPT@P", "LRU@P", "CLOCK@P", "CPRO@P", "2LIST@P", "wall L", "wall P"))
    lines = ["replacement: %d pages, %d references per trace; pages read back from swap "
             "(simulated: misses less first touches) at each kernel's resident frames" % (pages, refs),
             head, "-" * len(head)]
    dist_l = dist_p = dist_cpro = dist_two = 0.0
    ok = True
    for t in TRACES:
        v = {k: cell(data, s, t, m) for k, s, m in [
            ("ml", "linux", "majflt"), ("mp", "pagoda", "majflt"), ("il", "linux", "pswpin"),
            ("ip", "pagoda", "pswpin"), ("rl", "linux", "rss"), ("rp", "pagoda", "rss"),
            ("wl", "linux", "wall"), ("wp", "pagoda", "wall"), ("bl", "linux", "bad"),
            ("bp", "pagoda", "bad")]}
        if None in v.values():
            lines.append("%-8s (missing results)" % t)
            ok = False
            continue
        fl, fp = max(1, int(v["rl"])), max(1, int(v["rp"]))
        s = simulate(sim, t, pages, refs, [fl, fp])
        dist_l += v["il"] - s[fl][0]
        dist_p += v["ip"] - s[fp][0]
        dist_cpro += s[fp][3] - s[fp][0]
        dist_two += s[fp][4] - s[fp][0]
        ok = ok and v["mp"] < v["ml"] and v["wp"] <= v["wl"] and v["bp"] == 0 and v["bl"] == 0
        lines.append("%-8s %9d %9d  %9d %9d  %7d %7d  %8d %8d %8d %8d %8d %8d  %7.1f %7.1f"
                     % (t, v["ml"], v["mp"], v["il"], v["ip"], fl, fp, s[fl][0], s[fp][0],
                        s[fp][1], s[fp][2], s[fp][3], s[fp][4], v["wl"] / 1000, v["wp"] / 1000))
    goal = dist_p <= 0.5 * dist_l
    lines.append("pages read beyond OPT, summed: Linux %d, Pagoda %d (goal: Pagoda <= %d): %s"
                 % (dist_l, dist_p, 0.5 * dist_l, "met" if goal else "NOT met"))
    lines.append("simulated at Pagoda's frames, beyond OPT: CLOCK-Pro (CPRO@P) %d, its outline on "
                 "two lists that the kernel runs (2LIST@P) %d" % (dist_cpro, dist_two))
    mix_lines, mix_ok = filemix_table(data)
    return lines + mix_lines, ok and goal and mix_ok


def filemix_table(data):
    """The file-or-swap line: the data read from the disk (at best once), the
    idle memory written to swap, wall time; the goal: no more read than Linux."""
    v = {(s, m): cell(data, s, "filemix", m) for s in ("linux", "pagoda")
         for m in ("dataread", "pswpout", "pswpin", "wall", "bad")}
    if None in v.values():
        return ["filemix  (missing results)"], False
    once = FILEMIX_DATA_MIB * 256
    lines = ["",
             "filemix: %d MiB idle anonymous memory, then %d MiB of the disk read %d times "
             "(at best read once: %d pages)" % (FILEMIX_ANON_MIB, FILEMIX_DATA_MIB, FILEMIX_ROUNDS, once),
             "%-8s %10s %10s  %9s %9s  %9s %9s  %7s %7s" % (
                 "", "read L", "read P", "pswpout L", "pswpout P", "pswpin L", "pswpin P",
                 "wall L", "wall P")]
    lines.append("%-8s %10d %10d  %9d %9d  %9d %9d  %7.1f %7.1f" % (
        "filemix", v[("linux", "dataread")], v[("pagoda", "dataread")], v[("linux", "pswpout")],
        v[("pagoda", "pswpout")], v[("linux", "pswpin")], v[("pagoda", "pswpin")],
        v[("linux", "wall")] / 1000, v[("pagoda", "wall")] / 1000))
    ok = (v[("pagoda", "dataread")] <= v[("linux", "dataread")] and v[("pagoda", "bad")] == 0
          and v[("linux", "bad")] == 0)
    lines.append("data read from the disk: Pagoda at most Linux's: %s" % ("met" if ok else "NOT met"))
    return lines, ok


def report(out, sim, pages, refs):
    data, _ = bench.load(os.path.join(out, "results.csv"))
    lines, ok = table(data, sim, pages, refs)
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "tables.txt"), "w") as f:
        f.write(text + "\n")
    print("every goal met" if ok else "some goal not met (see the table)")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("run", "report"):
        p = sub.add_parser(name)
        p.add_argument("--out", required=True)
        p.add_argument("--sim", required=True, help="tools/bench/replace_sim's binary")
        p.add_argument("--pages", type=int, default=40960)
        p.add_argument("--refs-per-page", type=int, default=5)
        if name == "run":
            p.add_argument("--build", required=True)
            p.add_argument("--mem", default="128M")
            p.add_argument("--swap", default="512M")
            p.add_argument("--rounds", type=int, default=1)
            p.add_argument("--timeout", type=int, default=3600, help="seconds one boot may take")
    a = ap.parse_args()
    refs = a.pages * a.refs_per_page
    if a.cmd == "run":
        os.environ["BENCH_DISK"] = os.path.abspath(make_swap(a.build, a.swap))
        prepare(a.build, a.pages, a.refs_per_page, a.swap)
        failed = bench.run_rounds(a.out, systems(a.build, a.mem, a.pages, a.refs_per_page, a.swap),
                                  a.rounds, a.timeout)
        report(a.out, a.sim, a.pages, refs)
        return 1 if failed else 0
    report(a.out, a.sim, a.pages, refs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
