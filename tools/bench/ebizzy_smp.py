#!/usr/bin/env python3
"""tools/bench/ebizzy_smp.py -- make bench-ebizzy: seed 002's ebizzy table with
threads on several CPUs (issue 17), Pagoda and Linux side by side.

    ebizzy_smp.py run --build B --out DIR [--cpus "1 2 4"] [--rounds 3]
                      [--seconds 3] [--mem 512M]
        stage the static musl ebizzy (B/bench/musl) for Pagoda and for
        Debian's Linux (tools/bench/pagoda.sh, linux.sh), then boot, round
        after round and for each CPU count (QEMU -smp N), Linux and every
        Pagoda kernel configuration the rows need, alternately; each boot runs
        `ebizzy -S SECONDS --runs 1` in the modes its rows use (threads: the
        default, 2 per online CPU); then report
    ebizzy_smp.py report --out DIR
        the tables and the plot from DIR/results.csv: one seed-shaped table
        per CPU count, the scaling table, OUT/ebizzy_scaling.png

Seed 002's six rows cross three effects; on Pagoda each is a mode of ebizzy
or a kernel option (every Pagoda boot has smp_sched=1: processes on every CPU):
  madv  MADV_FREE (ebizzy -m free) instead of mmap+munmap per copy (-m mmap)
  sem   page faults take the address-space lock for reading (fault_lock=read,
        the default) instead of exclusively (fault_lock=write: the pre-sem kernel)
  tlb   batched TLB flushes (tlb=batch, the default) instead of one flush and
        free per page (tlb=nobatch)
Linux's lock and batching cannot be switched off, so Linux gets the rows that
are only about the mode: munmap, MADV_DONTNEED, MADV_FREE (its stock kernel,
which has both "sem" and "tlb"). Pagoda's default kernel also runs munmap and
dontneed, the rows to put next to Linux's.
"""
import argparse
import collections
import csv
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench   # noqa: E402
import plots   # noqa: E402
import tables  # noqa: E402

# A row of a table: its label, ebizzy's mode, and (Pagoda) the kernel options.
Row = collections.namedtuple("Row", "label mode fault_lock tlb")
SEED_ROWS = [
    Row("vanilla", "mmap", "write", "nobatch"),
    Row("madv", "free", "write", "nobatch"),
    Row("sem", "mmap", "read", "nobatch"),
    Row("madv+sem", "free", "read", "nobatch"),
    Row("madv+sem+tlb", "free", "read", "batch"),
    Row("madv+tlb", "free", "write", "batch"),
]
# Pagoda's default kernel in the modes Linux runs too.
DEFAULT_ROWS = [Row("munmap, default kernel", "mmap", "read", "batch"),
                Row("dontneed, default kernel", "dontneed", "read", "batch")]
PAGODA_ROWS = SEED_ROWS + DEFAULT_ROWS
LINUX_ROWS = [Row("vanilla (munmap)", "mmap", None, None), Row("dontneed", "dontneed", None, None),
              Row("madv (MADV_FREE)", "free", None, None)]
METRICS = [("records/s", "rate"), ("user s", "user"), ("system s", "sys"),
           ("wall s", "wall"), ("%CPU", "cpu")]
# The scaling table and plot: (system, row label) pairs.
SCALING = [("pagoda", r.label) for r in SEED_ROWS] + \
          [("pagoda", r.label) for r in DEFAULT_ROWS] + [("linux", r.label) for r in LINUX_ROWS]
PAGODA_TREE = "ebizzy"            # pagoda.sh's libc=NAME tree of the musl binaries
LINUX_INITRAMFS = "ebizzy.gz"     # linux.sh's LINUX_INITRAMFS


def kernel_options(row):
    """Pagoda's command line for a row (every boot: processes on every CPU)."""
    return "smp_sched=1 fault_lock=%s tlb=%s" % (row.fault_lock, row.tlb)


def column(system, cpus, row=None):
    """The results column of one boot: "linux smp=2", "pagoda smp=2
    fault_lock=write tlb=nobatch"."""
    if system == "linux":
        return "linux smp=%d" % cpus
    return "pagoda smp=%d fault_lock=%s tlb=%s" % (cpus, row.fault_lock, row.tlb)


def pagoda_configs():
    """The distinct Pagoda kernel configurations, in row order, each with the
    modes its rows run: [(row, [mode...])] (row: any row of that config)."""
    out = collections.OrderedDict()
    for r in PAGODA_ROWS:
        key = (r.fault_lock, r.tlb)
        first, modes = out.setdefault(key, (r, []))
        if r.mode not in modes:
            modes.append(r.mode)
    return list(out.values())


def ebizzy_args(modes, seconds):
    """The suite's --args word of ebizzy for those modes and seconds."""
    return "ebizzy=" + ",".join(["-m,%s" % m for m in modes] + ["-S,%d" % seconds])


def systems(build, cpus_list, seconds, mem):
    """The boots of one round, kernels alternating within each CPU count:
    [bench.System] -- Linux, then every Pagoda configuration."""
    out = []
    for n in cpus_list:
        out.append(bench.System(column("linux", n), "CPUS=%d LINUX_INITRAMFS=%s %s/linux.sh boot %s %s"
                                % (n, LINUX_INITRAMFS, HERE, build, mem), None, False))
        for row, modes in pagoda_configs():
            out.append(bench.System(
                column("pagoda", n, row),
                "CPUS=%d %s/pagoda.sh boot %s %s 'libc=%s %s' --only ebizzy --args %s"
                % (n, HERE, build, mem, PAGODA_TREE, kernel_options(row), ebizzy_args(modes, seconds)),
                None, False))
    return out


def prepare(build, seconds):
    """Stage the musl ebizzy for both kernels: Pagoda's tree PAGODA_TREE (the
    modes come per boot) and Linux's initramfs (every Linux mode)."""
    musl = os.path.join(build, "bench", "musl")
    env = dict(os.environ, BENCH_ARGS="--runs 1")
    subprocess.run([os.path.join(HERE, "pagoda.sh"), "prepare", build, musl, PAGODA_TREE],
                   env=env, check=True)
    modes = [r.mode for r in LINUX_ROWS]
    env = dict(os.environ, LINUX_INITRAMFS=LINUX_INITRAMFS,
               BENCH_ARGS="--only ebizzy --args %s --runs 1" % ebizzy_args(modes, seconds))
    subprocess.run([os.path.join(HERE, "linux.sh"), "prepare", build, musl], env=env, check=True)


def cpus_in(data):
    """The CPU counts measured, ascending."""
    return sorted({int(m.group(1)) for (c, _, _) in data
                   for m in [re.match(r"\w+ smp=(\d+)", c)] if m})


def cell(data, system, cpus, row, what):
    """The Cell of one row's metric at one CPU count, or None."""
    return data.get((column(system, cpus, row), "ebizzy", "%s_%s" % (row.mode, what)))


def show(c, with_spread=False):
    """A cell as text: the median (and the spread over runs), "-" if missing."""
    if c is None:
        return "-"
    text = tables.fmt(c.median)
    return text + (" ±%.0f%%" % tables.spread(c) if with_spread else "")


def threads_of(data, system, cpus, rows):
    """ebizzy's thread count in the boots of these rows ("-" if none ran)."""
    got = {data[k].median for k in data if k[1:] == ("ebizzy", "threads") and
           k[0] in {column(system, cpus, r) for r in rows}}
    return "/".join("%d" % t for t in sorted(got)) or "-"


def seed_table(data, cpus):
    """(header, body) of seed 002's shape at one CPU count: Pagoda's rows with
    their mode and kernel options, then Linux's."""
    header = ["kernel", "mode", "options", "threads"] + [lbl for (lbl, _) in METRICS]
    body = []
    for system, rows in (("pagoda", PAGODA_ROWS), ("linux", LINUX_ROWS)):
        for r in rows:
            opts = "fault_lock=%s tlb=%s" % (r.fault_lock, r.tlb) if system == "pagoda" else "stock"
            body.append(["%s %s" % (system, r.label), r.mode, opts, threads_of(data, system, cpus, [r])]
                        + [show(cell(data, system, cpus, r, m), m == "rate") for (_, m) in METRICS])
    return header, body


def row_of(system, label):
    """The Row of a SCALING entry."""
    return next(r for r in (PAGODA_ROWS if system == "pagoda" else LINUX_ROWS) if r.label == label)


def scaling_table(data, cpus_list):
    """(header, body): records/s of every row at each CPU count and the
    speed-up over the fewest CPUs."""
    lo = cpus_list[0] if cpus_list else 1
    header = ["records/s"] + ["%d CPU%s" % (n, "s" if n > 1 else "") for n in cpus_list] + \
             ["x at %d" % n for n in cpus_list[1:]]
    body = []
    for system, label in SCALING:
        r = row_of(system, label)
        cells = [cell(data, system, n, r, "rate") for n in cpus_list]
        base = cells[0]
        ups = ["%.2f" % (c.median / base.median) if c and base and base.median else "-"
               for c in cells[1:]]
        body.append(["%s %s" % (system, label)] + [show(c) for c in cells] + ups)
    return header, body, lo


def render_all(data, out):
    """Every table as text; OUT/table_ebizzy_smp_N.csv and
    OUT/table_ebizzy_scaling.csv."""
    parts, cpus_list = [], cpus_in(data)
    for n in cpus_list:
        header, body = seed_table(data, n)
        parts.append("== ebizzy, -smp %d, smp_sched=1, 2 threads per CPU: records/s (±spread over "
                     "rounds), user, system, wall seconds and %%CPU per run (shape of seed 002)" % n)
        parts.append(tables.render(header, body) + "\n")
        write_csv(os.path.join(out, "table_ebizzy_smp_%d.csv" % n), header, body)
    if cpus_list:
        header, body, lo = scaling_table(data, cpus_list)
        parts.append("== ebizzy scaling: records/s at each CPU count, speed-up over %d CPU" % lo)
        parts.append(tables.render(header, body) + "\n")
        write_csv(os.path.join(out, "table_ebizzy_scaling.csv"), header, body)
    return "\n".join(parts)


def write_csv(path, header, body):
    """One table as CSV."""
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([header] + body)


def plot(data, out):
    """OUT/ebizzy_scaling.png: records/s against CPUs, one line per row that
    was measured; None without gnuplot or data."""
    xs = cpus_in(data)
    series = [("%s %s" % (s, lbl), [c.median if c else None for c in
                                    (cell(data, s, n, row_of(s, lbl), "rate") for n in xs)])
              for (s, lbl) in SCALING]
    series = [(name, vals) for (name, vals) in series if any(v is not None for v in vals)]
    if not xs or not series or not plots.shutil.which("gnuplot"):
        return None
    return plots.lines(out, "ebizzy_scaling", "ebizzy records/s vs CPUs (QEMU TCG on a 2-core host)",
                       "CPUs (QEMU -smp)", "records/s", xs, series,
                       "set key below\nset termoption noenhanced\nset xtics (%s)\n" % ", ".join("%d" % x for x in xs))


def report(out):
    """Print the tables, write them to OUT/tables.txt and the CSVs, draw the plot."""
    data, columns = bench.load(os.path.join(out, "results.csv"))
    if not columns:
        sys.exit("ebizzy_smp report: no results in %s/results.csv" % out)
    text = render_all(data, out)
    print(text)
    with open(os.path.join(out, "tables.txt"), "w") as f:
        f.write(text + "\n")
    png = plot(data, out)
    if png:
        print("plot: " + png)
    problems = os.path.join(out, "problems.txt")
    if os.path.exists(problems) and os.path.getsize(problems):
        print("\nProblems (also in %s):\n%s" % (problems, open(problems).read().rstrip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--build", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--cpus", default="1 2 4")
    r.add_argument("--rounds", type=int, default=3)
    r.add_argument("--seconds", type=int, default=3, help="ebizzy -S: seconds per mode")
    r.add_argument("--mem", default="512M")
    r.add_argument("--timeout", type=int, default=600, help="seconds one boot may take")
    p = sub.add_parser("report")
    p.add_argument("--out", required=True)
    a = ap.parse_args()
    if a.cmd == "report":
        report(a.out)
        return 0
    prepare(a.build, a.seconds)
    cpus_list = [int(n) for n in a.cpus.split()]
    failed = bench.run_rounds(a.out, systems(a.build, cpus_list, a.seconds, a.mem),
                              a.rounds, a.timeout)
    report(a.out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
