"""tools/bench/plots.py -- PNG plots of the results with gnuplot (one line or one
bar colour per column, so later configurations appear without code changes).

  forkrss.png   fork+exit+wait latency against memory touched by the parent
  lmbench.png   fork / exec / sh latency, bars per column
  ebizzy.png    ebizzy system and wall seconds per allocation mode, bars per column
"""
import os
import shutil
import subprocess

import tables


def write_dat(path, header, rows):
    """A whitespace-separated data file with a quoted header row."""
    with open(path, "w") as f:
        f.write(" ".join('"%s"' % h for h in header) + "\n")
        for r in rows:
            f.write(" ".join(('"%s"' % v) if isinstance(v, str) else
                             ("%g" % v if v is not None else "NaN") for v in r) + "\n")


def gnuplot(script):
    """Run a gnuplot script; raises on failure."""
    subprocess.run(["gnuplot"], input=script, text=True, check=True,
                   stdout=subprocess.DEVNULL)


def value(data, col, bench, metric):
    """The median of one cell, or None when it was not measured."""
    c = data.get((col, bench, metric))
    return c.median if c else None


PREAMBLE = ('set terminal png size 900,560\nset output "%s"\nset title "%s"\n'
            'set key top left\nset grid ytics\n')


def bars(out, name, title, ylabel, labels, series):
    """A clustered bar chart: one cluster per label, one bar per (name, values)
    series. Returns the PNG path."""
    dat, png = os.path.join(out, name + ".dat"), os.path.join(out, name + ".png")
    write_dat(dat, ["x"] + [s for s, _ in series],
              [[lbl] + [vals[i] for _, vals in series] for i, lbl in enumerate(labels)])
    gnuplot(PREAMBLE % (png, title) +
            'set ylabel "%s"\nset key below\nset style data histogram\nset style histogram cluster gap 1\n'
            'set style fill solid 0.8 border -1\nset yrange [0:*]\n'
            'plot for [i=2:%d] "%s" using i:xtic(1) title columnheader(i)\n'
            % (ylabel, len(series) + 1, dat))
    return png


def forkrss(data, columns, out):
    """Line plot of forkrss latency against MiB touched, one line per column."""
    metrics = sorted({m for (_, b, m) in data if b == "forkrss"}, key=tables.mib_of)
    if not metrics:
        return None
    dat, png = os.path.join(out, "forkrss.dat"), os.path.join(out, "forkrss.png")
    write_dat(dat, ["MiB"] + columns,
              [[tables.mib_of(m)] + [value(data, c, "forkrss", m) for c in columns]
               for m in metrics])
    gnuplot(PREAMBLE % (png, "fork+exit+wait latency vs memory touched by the parent") +
            'set xlabel "MiB touched before fork"\nset ylabel "microseconds"\n'
            'set yrange [0:*]\n'
            'plot for [i=2:%d] "%s" using 1:i with linespoints lw 2 title columnheader(i)\n'
            % (len(columns) + 1, dat))
    return png


def draw_all(data, columns, out):
    """Draw every plot that has data; returns the PNG paths (none without gnuplot)."""
    if not shutil.which("gnuplot"):
        print("plots: gnuplot not found (tools/deps.sh bench installs it); no plots")
        return []
    pngs = [forkrss(data, columns, out)]
    procs = [m for (_, b, m) in tables.LMBENCH if b == "lat_proc"]
    if any(value(data, c, "lat_proc", m) is not None for c in columns for m in procs):
        pngs.append(bars(out, "lmbench", "process creation (lmbench lat_proc)",
                         "microseconds", procs,
                         [(c, [value(data, c, "lat_proc", m) for m in procs])
                          for c in columns]))
    modes = tables.EBIZZY_MODES
    if any(value(data, c, "ebizzy", m + "_wall") is not None for c in columns for m in modes):
        pngs.append(bars(out, "ebizzy", "ebizzy: seconds for the same work, per mode",
                         "seconds", modes,
                         [("%s %s" % (c, what), [value(data, c, "ebizzy", "%s_%s" % (m, what))
                                                 for m in modes])
                          for c in columns for what in ("sys", "wall")]))
    return [p for p in pngs if p]
