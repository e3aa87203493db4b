"""tools/bench/plots.py -- PNG plots of the results with gnuplot (one line or one
bar colour per column, so later configurations appear without code changes;
columns that did not measure what a plot shows are left out of it).

  forkrss.png        fork+exit+wait latency against memory touched by the parent
                     (log y: values span decades; every column, Linux included)
  lmbench.png        fork / exec / sh latency, bars per column
  ebizzy.png         ebizzy system and wall seconds per allocation mode, bars per
                     column (columns that ran every mode)
  ptshare_pages.png  page-table pages in use and shared against shells running
  kfork.png          in-kernel fork benchmark: us against MiB per strategy (log x)
"""
import os
import re
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


def plot(out, name, title, xs, series, settings, using):
    """Write OUT/NAME.dat (one row per x, one column per (name, values) series)
    and draw OUT/NAME.png with gnuplot `settings` and one `using` clause per
    series. Returns the PNG path."""
    dat, png = os.path.join(out, name + ".dat"), os.path.join(out, name + ".png")
    write_dat(dat, ["x"] + [s for s, _ in series],
              [[x] + [vals[i] for _, vals in series] for i, x in enumerate(xs)])
    gnuplot(PREAMBLE % (png, title) + settings +
            'plot for [i=2:%d] "%s" using %s title columnheader(i)\n'
            % (len(series) + 1, dat, using))
    return png


def bars(out, name, title, ylabel, labels, series):
    """A clustered bar chart: one cluster per label, one bar per (name, values)
    series. Returns the PNG path."""
    return plot(out, name, title, labels, series,
                'set ylabel "%s"\nset key below\nset style data histogram\n'
                'set style histogram cluster gap 1\nset style fill solid 0.8 border -1\n'
                'set yrange [0:*]\n' % ylabel, "i:xtic(1)")


def lines(out, name, title, xlabel, ylabel, xs, series, extra=""):
    """A line plot: one line per (name, values) series against the numbers xs;
    `extra` gnuplot settings (e.g. a log scale). Returns the PNG path."""
    return plot(out, name, title, xs, series,
                'set xlabel "%s"\nset ylabel "%s"\nset yrange [0:*]\n%s' % (xlabel, ylabel, extra),
                "1:i with linespoints lw 2")


def forkrss(data, columns, out):
    """Line plot of forkrss latency against MiB touched, one line per column."""
    metrics = sorted({m for (_, b, m) in data if b == "forkrss"}, key=tables.mib_of)
    columns = [c for c in columns if any(value(data, c, "forkrss", m) is not None
                                         for m in metrics)]
    if not metrics:
        return None
    return plot(out, "forkrss", "fork+exit+wait latency vs memory touched by the parent",
                ["%d" % tables.mib_of(m) for m in metrics],
                [(c, [value(data, c, "forkrss", m) for m in metrics]) for c in columns],
                'set xlabel "MiB touched before fork"\nset ylabel "microseconds (log scale)"\n'
                'set logscale y\nset key below\n', "0:i:xtic(1) with linespoints lw 2")


def matrix_lines(data, columns, out, name, title, mx, rows, xlabel, ylabel, extra=""):
    """A line per (column, matrix row key in rows) against the matrix's numeric
    column keys (e.g. shells running), or None without data."""
    cells = {c: mx.cells(data, c) for c in columns}
    xs = sorted({int(ck) for cs in cells.values() for (_, ck) in cs if ck.isdigit()})
    series = [("%s %s" % (c, label) if len(columns) > 1 else label,
               [cells[c][(rk, str(x))].median if (rk, str(x)) in cells[c] else None for x in xs])
              for c in columns for (rk, label) in rows
              if any(r == rk for (r, _) in cells[c])]
    if not xs or not series:
        return None
    return lines(out, name, title, xlabel, ylabel, xs, series, extra)


def kfork(data, columns, out):
    """In-kernel fork benchmark: us against MiB per strategy (log x), or None."""
    mx = tables.KFORK
    cells = {c: mx.cells(data, c) for c in columns}
    columns = [c for c in columns if cells[c]]
    strategies = [k for (k, _) in tables.Matrix.keys(mx.cols, {ck for c in columns
                                                                for (_, ck) in cells[c]}, "%s")]
    xs = sorted({int(rk) for c in columns for (rk, _) in cells[c]})
    series = [("%s %s" % (c, s) if len(columns) > 1 else s,
               [cells[c][(str(x), s)].median if (str(x), s) in cells[c] else None for x in xs])
              for c in columns for s in strategies]
    if not xs or not series:
        return None
    return lines(out, "kfork", "in-kernel fork+exit (bench=fork) vs address-space size",
                 "MiB mapped and touched", "microseconds", xs, series,
                 "set logscale x 2\nset logscale y\nset yrange [*:*]\n")


def draw_all(data, columns, out):
    """Draw every plot that has data; returns the PNG paths (none without gnuplot)."""
    if not shutil.which("gnuplot"):
        print("plots: gnuplot not found (tools/deps.sh bench installs it); no plots")
        return []
    pngs = [forkrss(data, columns, out)]
    procs = [m for (_, b, m) in tables.LMBENCH if b == "lat_proc"]
    cols = [c for c in columns if any(value(data, c, "lat_proc", m) is not None for m in procs)]
    if cols:
        pngs.append(bars(out, "lmbench", "process creation (lmbench lat_proc)",
                         "microseconds", procs,
                         [(c, [value(data, c, "lat_proc", m) for m in procs]) for c in cols]))
    modes = tables.EBIZZY_MODES
    ran = {c: [m for m in modes if value(data, c, "ebizzy", m + "_wall") is not None]
           for c in columns}
    most = max((len(r) for r in ran.values()), default=0)
    cols = [c for c in columns if ran[c] and len(ran[c]) == most]
    if cols:
        pngs.append(bars(out, "ebizzy", "ebizzy: seconds for the same work, per mode",
                         "seconds", modes,
                         [("%s %s" % (c, what), [value(data, c, "ebizzy", "%s_%s" % (m, what))
                                                 for m in modes])
                          for c in cols for what in ("sys", "wall")]))
    cols = [c for c in columns if re.search("ptshare=", c)]
    pngs.append(matrix_lines(data, cols, out, "ptshare_pages",
                             "page-table pages with N shells running (seed 003)",
                             tables.PTSHARE_PAGES, [("pt_pages", "in use"), ("pt_shared", "shared")],
                             "shells running", "page-table pages"))
    pngs.append(kfork(data, columns, out))
    return [p for p in pngs if p]
