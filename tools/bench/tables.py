"""tools/bench/tables.py -- the report's tables, generic over columns.

A column is one measured system/configuration ("linux", "pagoda ptshare=off", ...).
Each table lists items (label, bench, metric) and one of two layouts:
  side  rows = items, one column per system/configuration, then one ratio column
        per non-reference column (column / reference); cells "median ±spread%"
  seed  rows = columns, columns = items: the shape of the seed posts' tables
A table may keep only the columns matching a regular expression (e.g. "ptshare=");
with none it prints what it is waiting for. Metrics with "{g}" expand once per
group (ebizzy modes). Data: {(column, bench, metric): Cell}.
"""
import collections
import csv
import os
import re

Cell = collections.namedtuple("Cell", "median min max runs unit")

LMBENCH = [("null call", "lat_syscall", "null"), ("null I/O", "lat_syscall", "null_io"),
           ("fork proc", "lat_proc", "fork"), ("exec proc", "lat_proc", "exec"),
           ("sh proc", "lat_proc", "sh")]
EBIZZY_MODES = ["malloc", "mmap", "free", "dontneed"]
EBIZZY = [("user s", "ebizzy", "{g}_user"), ("system s", "ebizzy", "{g}_sys"),
          ("wall s", "ebizzy", "{g}_wall"), ("records/s", "ebizzy", "{g}_rate")]


def metric_items(bench, data, key=None, prefix=""):
    """Items for every metric of `bench` present in data, sorted by `key`, labelled
    prefix + metric."""
    ms = sorted({m for (_, b, m) in data if b == bench}, key=key)
    return [(prefix + m, bench, m) for m in ms]


def mib_of(metric):
    """forkrss metric fork_<N>M -> N (for sorting and plotting)."""
    m = re.match(r"fork_(\d+)M$", metric)
    return int(m.group(1)) if m else -1


class Table:
    """One table: name (file name), title, items (list or function of data),
    layout ("side" or "seed"), columns regex, groups, and what it waits for."""

    def __init__(self, name, title, items, layout="side", columns=None, groups=None,
                 waits=""):
        self.name, self.title, self.items, self.layout = name, title, items, layout
        self.columns_re, self.groups, self.waits = columns, groups, waits

    def expand(self, data):
        """The concrete (label, bench, metric) items, per group."""
        items = self.items(data) if callable(self.items) else self.items
        groups = self.groups or [""]
        return [(g, label, b, m.replace("{g}", g)) for g in groups for (label, b, m) in items]

    def columns(self, all_columns):
        """The columns this table shows, in run order."""
        if not self.columns_re:
            return list(all_columns)
        return [c for c in all_columns if re.search(self.columns_re, c)]


TABLES = [
    Table("lmbench", "Processes - times in microseconds - smaller is better "
          "(shape of seeds 000 and 004)", LMBENCH, layout="seed"),
    Table("side", "Side by side: microseconds per operation, median of all runs "
          "(±: (max-min)/2 as % of median)",
          lambda d: (LMBENCH[:2] + [("read", "lat_syscall", "read"),
                                    ("write", "lat_syscall", "write")] + LMBENCH[2:] +
                     [(m + " fault", "lat_pagefault", m) for m in ("write", "read")] +
                     metric_items("madvbench", d, prefix="madv ") +
                     metric_items("mallocbench", d, prefix="malloc "))),
    Table("forkrss", "fork+exit+wait latency (us) against memory touched by the parent",
          lambda d: [("%d MiB" % mib_of(m), b, m)
                     for (_, b, m) in metric_items("forkrss", d, key=mib_of)]),
    Table("ebizzy", "ebizzy, same work in every run: user, system, wall seconds "
          "and records/s, per allocation mode (shape of seed 002)",
          EBIZZY, layout="seed", groups=EBIZZY_MODES),
    Table("ptshare", "Page-table sharing: lmbench fork/exec/sh (us) without and with "
          "sharing (seed 000)", LMBENCH[2:], columns="ptshare=",
          waits="Pagoda columns ptshare=off/fork/all"),
    Table("ptshare_pages", "Page-table pages shared and memory saved with N shells "
          "running (seed 003)",
          [("PT pages", "ptshare_stat", "pt_pages"),
           ("PT pages shared", "ptshare_stat", "pt_pages_shared"),
           ("KiB saved", "ptshare_stat", "kib_saved")],
          layout="seed", columns="ptshare=",
          waits="Pagoda's page-table counters and columns ptshare=off/fork/all"),
    Table("paravirt", "Paravirt ops: lmbench times in microseconds (seed 004)",
          LMBENCH, layout="seed", columns="pv=|PARAVIRT=",
          waits="Pagoda columns PARAVIRT=0, pv=indirect, pv=patched"),
    Table("malloc_purge", "malloc purge policies: us per malloc+free pair, ebizzy "
          "malloc mode records/s",
          lambda d: metric_items("mallocbench", d) + [("ebizzy malloc rec/s", "ebizzy",
                                                       "malloc_rate")],
          columns="MALLOC_PURGE=", waits="Pagoda columns MALLOC_PURGE=..."),
]


def fmt(v):
    """A number the way lmbench prints them: 4 significant digits, no exponent."""
    if v != v:
        return "nan"
    if abs(v) >= 1000:
        return "%.0f" % v
    return ("%.4g" % v) if abs(v) >= 0.001 or v == 0 else "%.2g" % v


def spread(c):
    """Half the min..max range as a percentage of the median."""
    return (c.max - c.min) / 2 / c.median * 100 if c.median else 0.0


def grid(table, data, columns, ref):
    """The table as a header row and body rows of strings. Ratios divide by the
    column `ref`, or by the table's first column when ref is not among them."""
    items = table.expand(data)
    ref = ref if ref in columns else columns[0]
    if table.layout == "seed":
        header = [""] + [lbl for (_, lbl, _, _) in items[:len(items) // len(table.groups or [""])]]
        body = []
        for g in table.groups or [""]:
            for col in columns:
                row = [(col + " " + g).strip()]
                for (gg, _, b, m) in items:
                    if gg == g:
                        c = data.get((col, b, m))
                        row.append(fmt(c.median) if c else "-")
                body.append(row)
        return header, body
    others = [c for c in columns if c != ref]
    header = [""] + columns + ["%s / %s" % (c, ref) for c in others]
    body = []
    for (_, lbl, b, m) in items:
        row = [lbl]
        for col in columns:
            c = data.get((col, b, m))
            row.append("%s ±%.0f%%" % (fmt(c.median), spread(c)) if c else "-")
        r = data.get((ref, b, m))
        for col in others:
            c = data.get((col, b, m))
            row.append("%.3g" % (c.median / r.median) if c and r and r.median else "-")
        body.append(row)
    return header, body


def render(header, body):
    """Fixed-width text: the first column left-aligned, the rest right-aligned."""
    rows = [header] + body
    w = [max(len(r[i]) for r in rows) for i in range(len(header))]
    line = lambda r: "  ".join(r[0].ljust(w[0]) if i == 0 else r[i].rjust(w[i])  # noqa: E731
                               for i in range(len(r)))
    rule = "-" * len(line(header))
    return "\n".join([line(header), rule] + [line(r) for r in body])


def render_all(data, all_columns, ref, out):
    """Every table as text (and OUT/table_NAME.csv for each one with data)."""
    parts = []
    for t in TABLES:
        cols = t.columns(all_columns)
        parts.append("== %s" % t.title)
        header, body = grid(t, data, cols, ref) if cols else ([], [])
        if not cols or all(cell == "-" for r in body for cell in r[1:]):
            parts.append("   (not measured yet: needs %s)\n" % (t.waits or "data"))
            continue
        parts.append(render(header, body) + "\n")
        with open(os.path.join(out, "table_%s.csv" % t.name), "w", newline="") as f:
            csv.writer(f).writerows([header] + body)
    return "\n".join(parts)
