#!/usr/bin/env python3
"""tools/bench/test_ebizzy_smp.py -- a fast check of make bench-ebizzy's plan and
report (make test): the boot plan alternates Linux and Pagoda within each CPU
count, every Pagoda boot has smp_sched=1 and each seed row runs its mode under
its kernel options (vanilla = munmap with fault_lock=write tlb=nobatch, ...);
a synthetic results.csv goes through `ebizzy_smp.py report` and every
seed-shaped table and the scaling table must show the right numbers in the
right cells, "-" where nothing was measured, and write their CSV files (and,
with gnuplot, the plot). Exits 1 on any failure.
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ebizzy_smp as ez  # noqa: E402

failures = []


def expect(cond, what):
    """Record a failed check."""
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def check_plan():
    """Rows' options, the boots of one round and what each runs."""
    rows = {r.label: r for r in ez.SEED_ROWS}
    expect([r.label for r in ez.SEED_ROWS] ==
           ["vanilla", "madv", "sem", "madv+sem", "madv+sem+tlb", "madv+tlb"], "seed row order")
    for label, mode, lock, tlb in [("vanilla", "mmap", "write", "nobatch"),
                                   ("madv", "free", "write", "nobatch"),
                                   ("sem", "mmap", "read", "nobatch"),
                                   ("madv+sem", "free", "read", "nobatch"),
                                   ("madv+sem+tlb", "free", "read", "batch"),
                                   ("madv+tlb", "free", "write", "batch")]:
        expect(rows[label] == ez.Row(label, mode, lock, tlb), "row %s: %s" % (label, rows[label]))
    sy = ez.systems("B", [1, 4], 3, "512M")
    names = [s.name for s in sy]
    expect(names[0] == "linux smp=1" and names[5] == "linux smp=4" and len(names) == 10,
           "plan: Linux first at each CPU count, 4 Pagoda configurations: %s" % names)
    for s in sy:
        n = s.name.split()[1].split("=")[1]
        expect(s.command.startswith("CPUS=%s " % n), "CPUS of %s: %s" % (s.name, s.command))
        if s.name.startswith("pagoda"):
            expect("smp_sched=1" in s.command and "-S,3" in s.command, "pagoda boot: " + s.command)
    vanilla = next(s for s in sy if s.name == "pagoda smp=4 fault_lock=write tlb=nobatch")
    expect("fault_lock=write tlb=nobatch" in vanilla.command and
           "ebizzy=-m,mmap,-m,free,-S,3" in vanilla.command, "vanilla+madv boot: " + vanilla.command)
    default = next(s for s in sy if s.name == "pagoda smp=1 fault_lock=read tlb=batch")
    expect("ebizzy=-m,free,-m,mmap,-m,dontneed" in default.command, "default boot: " + default.command)


def value(cpus, config, mode, what):
    """The synthetic median: encodes CPUs, configuration number and mode."""
    base = {"rate": 1000, "user": 1, "sys": 2, "wall": 3, "cpu": 50}[what]
    return base * cpus + 10 * config + ["mmap", "free", "dontneed"].index(mode)


def synthetic(path):
    """results.csv for CPUs 1 and 2 (CPU 4 missing), 2 rounds; Linux at 2 CPUs
    without dontneed."""
    rows = []
    for cpus in (1, 2):
        configs = [("linux smp=%d" % cpus, ["mmap", "dontneed", "free"])] + \
                  [(ez.column("pagoda", cpus, r), m) for (r, m) in ez.pagoda_configs()]
        for k, (col, modes) in enumerate(configs):
            if col == "linux smp=2":
                modes = ["mmap", "free"]
            for rnd in (1, 2):
                rows.append([col, rnd, "ebizzy", "threads", "threads", 2 * cpus, 2 * cpus, 2 * cpus, 1])
                for mode in modes:
                    for what in ("rate", "user", "sys", "wall", "cpu", "records"):
                        v = value(cpus, k, mode, what if what != "records" else "rate")
                        v += rnd - 1    # round 2 one higher: the median is +0.5
                        rows.append([col, rnd, "ebizzy", "%s_%s" % (mode, what), "x", v, v, v, 1])
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["column", "round", "bench", "metric", "unit", "median", "min", "max", "runs"])
        w.writerows(rows)


def table_rows(text, title_part):
    """{first cell: [cells]} of the table whose title contains title_part
    (cells split at two or more spaces)."""
    import re
    sec = text.split("== ")
    sec = next((s for s in sec if title_part in s.split("\n")[0]), "")
    out = {}
    for line in sec.split("\n")[3:]:
        cells = [c for c in re.split(r"\s{2,}", line.strip()) if c]
        if cells:
            out[cells[0]] = cells
    return out


def check_report():
    """The tables of a synthetic run."""
    d = tempfile.mkdtemp(prefix="ebizzy-report-")
    try:
        synthetic(os.path.join(d, "results.csv"))
        p = subprocess.run([sys.executable, os.path.join(HERE, "ebizzy_smp.py"), "report",
                            "--out", d], capture_output=True, text=True)
        expect(p.returncode == 0, "report exit status %d: %s" % (p.returncode, p.stderr))
        text = p.stdout
        t2 = table_rows(text, "-smp 2,")
        # configs in order: linux 0, (write,nobatch) 1, (read,nobatch) 2, (read,batch) 3, (write,batch) 4
        for label, mode, k in [("vanilla", "mmap", 1), ("madv", "free", 1), ("sem", "mmap", 2),
                               ("madv+sem", "free", 2), ("madv+sem+tlb", "free", 3),
                               ("madv+tlb", "free", 4), ("dontneed, default kernel", "dontneed", 3)]:
            r = t2.get("pagoda " + label)
            want_rate = "%.0f" % (value(2, k, mode, "rate") + 0.5)
            expect(r is not None and r[1] == mode and r[3] == "4" and r[4].startswith(want_rate + " ±"),
                   "smp 2 row %s: %s (want rate %s)" % (label, r, want_rate))
            want_cpu = "%.4g" % (value(2, k, mode, "cpu") + 0.5)
            expect(r is not None and r[-1] == want_cpu, "smp 2 %s %%CPU %s, want %s" % (label, r, want_cpu))
        lin = t2.get("linux dontneed")
        expect(lin is not None and lin[4:] == ["-"] * 5, "linux 2 CPUs without dontneed: %s" % lin)
        lin = t2.get("linux madv (MADV_FREE)")
        expect(lin is not None and lin[2] == "stock" and lin[4].startswith("%.0f" % (value(2, 0, "free", "rate") + 0.5)),
               "linux free at 2: %s" % lin)
        expect("-smp 4" not in text, "no table for the CPU count not measured")
        sc = table_rows(text, "scaling")
        r = sc.get("pagoda madv+sem+tlb")
        speed = "%.2f" % ((value(2, 3, "free", "rate") + 0.5) / (value(1, 3, "free", "rate") + 0.5))
        expect(r is not None and r[1] == "%.0f" % (value(1, 3, "free", "rate") + 0.5) and r[3] == speed,
               "scaling madv+sem+tlb: %s (want x %s)" % (r, speed))
        r = sc.get("linux dontneed")
        expect(r is not None and r[2] == "-" and r[3] == "-", "scaling linux dontneed at 2: %s" % r)
        for name in ("table_ebizzy_smp_1.csv", "table_ebizzy_smp_2.csv", "table_ebizzy_scaling.csv"):
            expect(os.path.exists(os.path.join(d, name)), name + " written")
        if shutil.which("gnuplot"):
            expect(os.path.exists(os.path.join(d, "ebizzy_scaling.png")), "ebizzy_scaling.png drawn")
    finally:
        shutil.rmtree(d)


def main():
    check_plan()
    check_report()
    print("test_ebizzy_smp: %s" % ("%d failures" % len(failures) if failures else "all checks pass"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
