#!/usr/bin/env python3
"""tools/bench/test_report.py -- a fast check of the report code (make test):
feeds a synthetic results.csv with every configuration `make bench` boots
through `bench.py report` and checks that every table renders with the right
numbers in the right cells (ptshare, ptshare_pages, paravirt, malloc_purge,
kfork, ...), that its CSV files (and, with gnuplot, its plots) are written,
that a table without data says "not measured yet", bench-linux's layout
(Linux, Pagoda with the same musl binaries, Pagoda's newlib builds) with its
targets table, that `bench.py check`
accepts only the skips it is told to, and make bench's boot plan
(configs.py). Exits 1 on any failure.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = [sys.executable, os.path.join(HERE, "bench.py")]
sys.path.insert(0, HERE)
import configs  # noqa: E402
import tables   # noqa: E402

PTSHARE = ["ptshare=off", "ptshare=fork", "ptshare=all", "ptshare=pd"]
PV = ["PARAVIRT=0", "pv=indirect", "pv=patched"]
PURGE = ["MALLOC_PURGE=" + p for p in ("free", "dontneed", "munmap", "none")]
failures = []


def expect(cond, what):
    """Record a failed check."""
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def rows_for(column, k):
    """Synthetic results of one configuration column, config number k: the
    metrics make bench gets from it, values that encode column and metric."""
    out = []

    def add(bench, metric, unit, v):
        out.append((column, bench, metric, unit, v))
    name = column[len("pagoda "):]
    if name in PTSHARE + PV:
        for i, m in enumerate(["null", "read", "write", "null_io"]):
            add("lat_syscall", m, "us", 0.5 + i / 10 + k / 100)
        for i, m in enumerate(["fork", "exec", "sh"]):
            add("lat_proc", m, "us", 100 * (i + 1) + k)
    if name in PTSHARE:
        for m in ("write", "read"):
            add("lat_pagefault", m, "us", 5 + k)
        for mib in (0, 16, 64):
            add("forkrss", "fork_%dM" % mib, "us", 400 + mib * (10 - 3 * k))
        add("madvbench", "cycle_keep", "us", 3 + k)
        for mode in tables.EBIZZY_MODES:
            for what, v in (("user", 1), ("sys", 0.5), ("wall", 1.5), ("rate", 5e4)):
                add("ebizzy", "%s_%s" % (mode, what), "s", v + k)
        for n in (0, 1, 2, 4):
            add("ptshare_stat", "pt_pages_%dsh" % n, "pages", 50 + 10 * n - k * n)
            add("ptshare_stat", "pt_shared_%dsh" % n, "pages", k * n)
            add("ptshare_stat", "kib_saved_%dsh" % n, "KiB", 4 * k * n)
            if n:
                add("ptshare_stat", "rss_kib_%dsh" % n, "KiB", 400 * n)
                add("ptshare_stat", "pss_kib_%dsh" % n, "KiB", 100 * n + k)
    if name in PURGE:
        for m in ("pair_small", "batch_large"):
            add("mallocbench", m, "us", 1 + k)
        for what, v in (("user", 1), ("sys", 0.5), ("wall", 1.5), ("rate", 5e4)):
            add("ebizzy", "malloc_" + what, "s", v + k)
    if name == "bench=fork":
        for mib in (1, 16, 64):
            for j, s in enumerate(("copy", "cow", "share")):
                add("kfork", "%s_%dM" % (s, mib), "us", mib * (3 - j) + 10)
                add("kfork_fork", "%s_%dM" % (s, mib), "us", mib * (3 - j) + 7)
                add("kfork_exit", "%s_%dM" % (s, mib), "us", 3)
                add("kfork_tsc", "%s_%dM" % (s, mib), "cycles", 2000 * (mib * (3 - j) + 10))
    return out


def write_results(path, columns, skip_bench=""):
    """results.csv with two rounds (the second 10% slower) of every column."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["column", "round", "bench", "metric", "unit", "median", "min", "max", "runs"])
        for rnd, scale in ((1, 1.0), (2, 1.1)):
            for k, col in enumerate(columns):
                for (c, b, m, u, v) in rows_for(col, k):
                    if b != skip_bench:
                        v = v * scale
                        w.writerow([c, rnd, b, m, u, v, v * 0.9, v * 1.2, 5])


def report(out, *extra):
    """bench.py report on OUT; its standard output."""
    r = subprocess.run(BENCH + ["report", "--out", out] + list(extra),
                       capture_output=True, text=True)
    expect(r.returncode == 0, "bench.py report exit status %d: %s" % (r.returncode, r.stderr))
    return r.stdout


def section(text, name):
    """The text of the table titled like tables.py's table `name`."""
    title = next(t.title for t in tables.TABLES if t.name == name)
    start = text.find("== " + title)
    expect(start >= 0, "table %s printed" % name)
    end = text.find("\n== ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def cell(out, name, row_label, col_label):
    """The cell of table `name` (from OUT/table_NAME.csv) at the row labelled
    row_label and the column headed col_label, or None."""
    path = os.path.join(out, "table_%s.csv" % name)
    if not os.path.exists(path):
        return None
    rows = list(csv.reader(open(path)))
    if col_label not in rows[0]:
        return None
    for r in rows[1:]:
        if r[0] == row_label:
            return r[rows[0].index(col_label)]
    return None


def check_full(out):
    """Every configuration present: every table renders with its numbers."""
    columns = ["pagoda " + c.name for c in configs.CONFIGS]
    write_results(os.path.join(out, "results.csv"), columns)
    text = report(out, "--tables", ",".join(configs.TABLES))
    for name in configs.TABLES:
        sec = section(text, name)
        expect("not measured yet" not in sec, "table %s has data:\n%s" % (name, sec))
        expect(os.path.exists(os.path.join(out, "table_%s.csv" % name)), "table_%s.csv" % name)
    # seed 000: fork/exec/sh per ptshare configuration with ratios against off;
    # fork of ptshare=fork (k=1): rounds 101 and 111.1 -> median 106.05,
    # spread (1.2 * 111.1 - 0.9 * 101) / 2 / 106.05 = 20%
    sec = section(text, "ptshare")
    expect(cell(out, "ptshare", "fork proc", "fork") == "106.1 ±20%",
           "ptshare fork cell:\n" + sec)
    expect(cell(out, "ptshare", "exec proc", "all / off") == "1.01",
           "ptshare ratio cell:\n" + sec)
    expect("PARAVIRT" not in sec and "MALLOC" not in sec, "ptshare table has only ptshare=")
    expect(open(os.path.join(out, "table_ptshare.csv")).readline().startswith("ptshare=,off,"),
           "the common KEY= goes to the corner")
    # seed 003: ptshare=all (k=2), KiB saved with 4 shells: 32 and 35.2 -> 33.6
    sec = section(text, "ptshare_pages")
    expect(cell(out, "ptshare_pages", "all   KiB saved", "4 sh") == "33.6",
           "ptshare_pages:\n" + sec)
    expect(cell(out, "ptshare_pages", "off   PSS KiB", "0 sh") == "-",
           "no PSS with 0 shells:\n" + sec)
    for lbl in ("PT pages", "PT pages shared", "KiB saved", "RSS KiB", "PSS KiB"):
        expect(lbl in sec, "ptshare_pages row %s" % lbl)
    # seed 004: three pv rows
    sec = section(text, "paravirt")
    for k, c in enumerate(PV):
        expect(cell(out, "paravirt", c, "fork proc") == "%.4g" % ((100 + len(PTSHARE) + k) * 1.05),
               "paravirt row %s:\n%s" % (c, sec))
    expect("ptshare" not in sec, "paravirt table has only pv columns")
    # malloc purge: four columns, ebizzy malloc records/s
    sec = section(text, "malloc_purge")
    for c in PURGE:
        expect(cell(out, "malloc_purge", "pair_small", c[len("MALLOC_PURGE="):]) is not None,
               "malloc_purge column %s:\n%s" % (c, sec))
    # seed 002: the purge columns only show their malloc row
    sec = section(text, "ebizzy")
    expect(cell(out, "ebizzy", "MALLOC_PURGE=free malloc", "wall s") is not None,
           "ebizzy purge malloc row:\n" + sec)
    expect("MALLOC_PURGE=free mmap" not in sec, "ebizzy: no empty rows")
    # kfork: rows = sizes, columns = strategies; share 64M = 74 and 81.4 -> 77.7
    sec = section(text, "kfork")
    expect(cell(out, "kfork", "64 MiB", "share") == "77.7", "kfork cell:\n" + sec)
    expect(cell(out, "kfork", "1 MiB", "copy") == "13.65", "kfork copy 1 MiB:\n" + sec)
    sec = section(text, "kfork_parts")
    expect(cell(out, "kfork_parts", "16 MiB", "cow fork") == "40.95", "kfork_parts:\n" + sec)
    expect(cell(out, "kfork_parts", "16 MiB", "share exit") == "3.15", "kfork_parts exit")
    # forkrss: only the ptshare columns measured it
    sec = section(text, "forkrss")
    expect("pv=" not in sec and "MALLOC" not in sec, "forkrss only with ptshare columns")
    if shutil.which("gnuplot"):
        for png in ("forkrss", "lmbench", "ebizzy", "ptshare_pages", "kfork"):
            p = os.path.join(out, png + ".png")
            expect(os.path.exists(p) and os.path.getsize(p) > 0, "plot %s.png" % png)
    # every table of tables.py renders from the same data without an error
    text = report(out)
    for t in tables.TABLES:
        expect(("== " + t.title) in text, "table %s in the full report" % t.name)


LINUX_SIDE = {  # (bench, metric): (linux, pagoda libc=musl); newlib: musl * 2
    ("lat_proc", "fork"): (1000, 400), ("lat_proc", "exec"): (2000, 1200),
    ("lat_proc", "sh"): (4000, 1000), ("lat_pagefault", "write"): (10, 5),
    ("lat_pagefault", "read"): (2.5, 2), ("lat_pagefault", "read_thp"): (1.25, 2),
    ("forkrss", "fork_0M"): (700, 300), ("forkrss", "fork_1024M"): (7000, 320),
    ("madvbench", "cycle_free"): (90, 33), ("madvbench", "cycle_keep"): (30, 30),
    ("filebench", "read_cold_64M"): (300, 500), ("filebench", "dev_read_64M"): (400, 400),
    ("filebench", "fsync_4k"): (1000, 900),
}


def check_linux(out):
    """make bench-linux's layout: linux, the same musl binaries on Pagoda and
    the newlib builds; the targets table says which ratios meet their limits,
    forkrss has every column (Linux included) and a log scale."""
    columns = ["linux", "pagoda libc=musl", "pagoda libc=newlib"]
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["column", "round", "bench", "metric", "unit", "median", "min", "max", "runs"])
        for rnd, scale in ((1, 1.0), (2, 1.1)):
            for (b, m), (lin, musl) in LINUX_SIDE.items():
                for c, v in zip(columns, (lin, musl, 2 * musl)):
                    w.writerow([c, rnd, b, m, "us", v * scale, v * scale, v * scale, 5])
    text = report(out, "--ref", "linux")
    sec = section(text, "targets")
    want = {("fork proc / linux", "pagoda libc=musl"): "0.4 ok",
            ("exec proc / linux", "pagoda libc=musl"): "0.6 MISSED",
            ("write fault / linux", "pagoda libc=musl"): "0.5 MISSED",
            ("read fault / linux", "pagoda libc=musl"): "0.8 ok",
            ("read fault / linux", "pagoda libc=newlib"): "1.6 MISSED",
            ("fork 1 GiB / linux", "pagoda libc=musl"): "0.0457 ok",
            ("fork 1 GiB / fork 0 MiB", "pagoda libc=musl"): "1.07 ok",
            ("fork 1 GiB / fork 0 MiB", "linux"): "10 MISSED",
            ("fork proc / linux", "linux"): "-",
            ("fork proc / linux", "pagoda libc=newlib"): "0.8 MISSED",
            ("MADV_FREE cycle / rewrite", "pagoda libc=musl"): "1.1 ok",
            ("MADV_FREE cycle / rewrite", "pagoda libc=newlib"): "1.1 ok",
            ("fork 1 GiB / linux", "pagoda libc=newlib"): "0.0914 MISSED"}
    for (row, col), v in want.items():
        expect(cell(out, "targets", row, col) == v, "targets %s, %s: want %s:\n%s"
               % (row, col, v, sec))
    want = {("read 64 MiB cold / linux", "pagoda libc=musl"): "1.67 MISSED",
            ("append 4 KiB + fsync / linux", "pagoda libc=musl"): "0.9 ok",
            ("read cold / device read", "linux"): "0.75 ok",
            ("read cold / device read", "pagoda libc=musl"): "1.25 MISSED",
            ("write 64 MiB + fsync / linux", "pagoda libc=musl"): "-"}
    for (row, col), v in want.items():
        expect(cell(out, "file_targets", row, col) == v, "file_targets %s, %s: want %s:\n%s"
               % (row, col, v, section(text, "file_targets")))
    expect(cell(out, "side", "fork proc", "pagoda libc=musl / linux") == "0.4",
           "side ratio against linux")
    expect(cell(out, "side", "read fault thp", "pagoda libc=musl / linux") == "1.6",
           "side: the default-page-size read fault on its own row")
    if shutil.which("gnuplot"):
        dat = open(os.path.join(out, "forkrss.dat")).readline()
        expect(all('"%s"' % c in dat for c in columns), "forkrss plot has every column: " + dat)
        expect(os.path.getsize(os.path.join(out, "forkrss.png")) > 0, "forkrss.png")


def check_missing(out):
    """Without kfork results, the kfork table waits; the others still print."""
    columns = ["pagoda " + c for c in PTSHARE]
    write_results(os.path.join(out, "results.csv"), columns, skip_bench="kfork")
    text = report(out, "--tables", "ptshare,kfork,paravirt")
    expect("not measured yet" in section(text, "kfork"), "kfork waits without data")
    expect("not measured yet" in section(text, "paravirt"), "paravirt waits without data")
    expect("not measured yet" not in section(text, "ptshare"), "ptshare prints")
    r = subprocess.run(BENCH + ["report", "--out", out, "--tables", "nosuch"],
                       capture_output=True, text=True)
    expect(r.returncode != 0, "an unknown table is an error")


def check_skips(out):
    """bench.py check --suite: a skip fails unless --allow-skip matches it."""
    log = os.path.join(out, "suite.log")
    with open(log, "w") as f:
        f.write("BENCHSTART ptshare_stat\nBENCHPROG ptshare_stat\n"
                "BENCH ptshare_stat pt_pages_1sh pages median=1 min=1 max=1 runs=1\n"
                "BENCHSKIP ptshare_stat pt_shared no sharing\nBENCHDONE\n")

    def status(*extra):
        return subprocess.run(BENCH + ["check", "--suite", log] + list(extra),
                              capture_output=True).returncode
    expect(status() == 1, "a skip fails the check")
    expect(status("--allow-skip", "ptshare_stat (pt_shared|kib_saved)$") == 0, "allowed skip")
    expect(status("--allow-skip", "ptshare_stat kib_saved$") == 1, "other skip still fails")


def check_configs(out):
    """make bench's plan: groups expand, PARAVIRT=0 boots the other kernel,
    the bench=fork boot has its own memory and boots in round 1 only."""
    import bench
    chosen = configs.select(["pv", "bench=fork"])
    expect([c.name for c in chosen] == PV + ["bench=fork"], "configs.select: %s" % chosen)
    systems = [bench.System(*s) for s in configs.systems(chosen, "b", "b-nopv", "2G", "x=1", "3G")]
    cmds = {s.name: s.command for s in systems}
    expect(cmds["pagoda PARAVIRT=0"].startswith("PAGODA_KERNEL=b-nopv/kernel.elf "),
           "PARAVIRT=0 kernel: " + cmds["pagoda PARAVIRT=0"])
    expect("3G 'bench=fork x=1' --init" in cmds["pagoda bench=fork"],
           "bench=fork boot: " + cmds["pagoda bench=fork"])
    expect("2G pv=patched --only lat_syscall,lat_proc" in cmds["pagoda pv=patched"],
           "pv=patched boot: " + cmds["pagoda pv=patched"])
    plan = [(rnd, s.name) for (rnd, s) in bench.boot_plan(systems, 2)]
    expect(plan.count((1, "pagoda bench=fork")) == 1 and (2, "pagoda bench=fork") not in plan
           and (2, "pagoda pv=patched") in plan, "boot plan: %s" % plan)
    try:
        configs.select(["nosuch"])
        expect(False, "an unknown configuration is an error")
    except SystemExit:
        pass


def main():
    with tempfile.TemporaryDirectory(prefix="mkbench-report-") as tmp:
        for fn in (check_full, check_linux, check_missing, check_skips, check_configs):
            d = os.path.join(tmp, fn.__name__)
            os.makedirs(d)
            fn(d)
    print("bench report test: %s" % ("%d failures" % len(failures) if failures else "ok"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
