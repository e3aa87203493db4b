#!/usr/bin/env python3
"""tools/bench/libshare_table.py OUT -- the table of tools/bench/libshare.sh.

Reads OUT/pagoda-off.log, OUT/pagoda-all.log and OUT/linux.log (the BENCH
lines of user/libshare_stat.c: "BENCH libshare_TAG METRIC_N UNIT median=V
..."), prints one table (rows: metric per system and build, columns: the
number of programs running) and writes OUT/libshare.csv and, with gnuplot,
OUT/libshare.png (page-table pages per program against N). "PT/prog" is
(PT pages with N running - PT pages with none) / N: what one more program
costs in page-table pages, the figure issue 21's goal is about.
"""
import os
import re
import shutil
import subprocess
import sys

SYSTEMS = [("pagoda off", "pagoda-off.log"), ("pagoda all", "pagoda-all.log"),
           ("linux", "linux.log")]
BUILDS = ["static", "dynamic"]
ROWS = [("pt_pages", "PT pages"), ("pt_prog", "PT/prog"), ("pt_shared", "PT shared"),
        ("kib_saved", "KiB saved"), ("rss_kib", "RSS KiB"), ("pss_kib", "PSS KiB")]
LINE = re.compile(r"^BENCH libshare_(\w+) ([a-z_]+)_(\d+) \S+ median=([-\d.e+]+)")


def parse(path):
    """{(build, metric, n): value} of one log ({} when it is missing)."""
    data = {}
    if not os.path.exists(path):
        return data
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                data[(m.group(1), m.group(2), int(m.group(3)))] = float(m.group(4))
    return data


def derive(data):
    """Add pt_prog: page-table pages per running program above the N=0 baseline."""
    for (build, metric, n), v in list(data.items()):
        base = data.get((build, "pt_pages", 0))
        if metric == "pt_pages" and n > 0 and base is not None:
            data[(build, "pt_prog", n)] = (v - base) / n


def fmt(v):
    if v is None:
        return "-"
    return "%d" % v if v == int(v) else "%.2f" % v


def table(all_data, counts):
    """The text table and its CSV rows."""
    head = "%-28s" % "programs running:" + "".join("%8d" % n for n in counts)
    lines, csv = [head, "-" * len(head)], ["system,build,metric," + ",".join(map(str, counts))]
    for metric, label in ROWS:
        for system, _ in SYSTEMS:
            for build in BUILDS:
                vals = [all_data[system].get((build, metric, n)) for n in counts]
                if all(v is None for v in vals):
                    continue
                lines.append("%-28s" % ("%s %s %s" % (system, build, label)) +
                             "".join("%8s" % fmt(v) for v in vals))
                csv.append("%s,%s,%s,%s" % (system, build, metric,
                                            ",".join(fmt(v) for v in vals)))
    return lines, csv


def plot(out, all_data, counts):
    """OUT/libshare.png: PT pages per program against N, one line per system and build."""
    if not shutil.which("gnuplot"):
        return None
    series = [(s, b) for s, _ in SYSTEMS for b in BUILDS
              if any((b, "pt_prog", n) in all_data[s] for n in counts)]
    dat, png = os.path.join(out, "libshare.dat"), os.path.join(out, "libshare.png")
    with open(dat, "w") as f:
        f.write('"N" ' + " ".join('"%s %s"' % sb for sb in series) + "\n")
        for n in counts[1:]:
            f.write("%d " % n + " ".join(
                "%g" % all_data[s].get((b, "pt_prog", n), float("nan")) for s, b in series) + "\n")
    script = ('set terminal png size 900,560\nset output "%s"\n'
              'set title "page-table pages per program, N different programs running"\n'
              'set key top right\nset grid ytics\nset logscale x 2\nset xlabel "programs running"\n'
              'set ylabel "(PT pages - PT pages with none) / N"\n'
              'plot for [i=2:%d] "%s" using 1:i with linespoints title columnheader(i)\n'
              % (png, len(series) + 1, dat))
    subprocess.run(["gnuplot"], input=script, text=True, check=True, stdout=subprocess.DEVNULL)
    return png


def main():
    out = sys.argv[1]
    all_data = {}
    for system, log in SYSTEMS:
        all_data[system] = parse(os.path.join(out, log))
        derive(all_data[system])
    counts = sorted({n for d in all_data.values() for (_, _, n) in d})
    if not counts:
        raise SystemExit("libshare: no BENCH lines in %s" % out)
    lines, csv = table(all_data, counts)
    print("== Page-table pages with N different programs running, static vs dynamic "
          "builds (seed 003 with shared libraries)")
    print("\n".join(lines))
    with open(os.path.join(out, "libshare.csv"), "w") as f:
        f.write("\n".join(csv) + "\n")
    png = plot(out, all_data, counts)
    if png:
        print("plot: %s" % png)


if __name__ == "__main__":
    main()
