"""tools/bench/tables.py -- the report's tables, generic over columns.

A column is one measured system/configuration ("linux", "pagoda ptshare=off", ...).
Each table lists items (label, bench, metric) and one of four layouts:
  side    rows = items, one column per system/configuration, then one ratio column
          per non-reference column (column / reference); cells "median ±spread%"
  seed    rows = columns, columns = items: the shape of the seed posts' tables
  matrix  one bench whose metric names hold two keys (ptshare_stat pt_pages_8sh:
          what = pt_pages, N = 8; kfork share_64M: strategy, MiB): rows = column x
          one key, columns = the other key (a Matrix describes how)
  targets one row per Target (a ratio and its limit: a column against the
          reference, or two metrics of one column), one column per system with
          the ratio and "ok" or "MISSED"
A table may keep only the columns matching a regular expression (e.g. "ptshare=");
with none it prints what it is waiting for. A configuration that measured
nothing of a table is left out of it (make bench runs only what each
configuration's tables need). Metrics with "{g}" expand once per group (ebizzy
modes). Data: {(column, bench, metric): Cell}.
"""
import collections
import csv
import os
import re

Cell = collections.namedtuple("Cell", "median min max runs unit")

LMBENCH = [("null call", "lat_syscall", "null"), ("null I/O", "lat_syscall", "null_io"),
           ("fork proc", "lat_proc", "fork"), ("exec proc", "lat_proc", "exec"),
           ("sh proc", "lat_proc", "sh")]
# lat_pagefault: 4 KiB faults on every kernel (MADV_NOHUGEPAGE), then the
# kernel's default page size (Linux's transparent huge pages; user/bench/lat_pagefault.c).
PAGEFAULT = [("write fault", "lat_pagefault", "write"), ("read fault", "lat_pagefault", "read"),
             ("write fault thp", "lat_pagefault", "write_thp"),
             ("read fault thp", "lat_pagefault", "read_thp")]
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


class Matrix:
    """How a matrix table reads metric names: `pattern` (a regex with groups
    "row" and "col") splits a metric name of `bench`, or of each bench of a
    list of (bench, suffix) whose suffix is appended to the col key (kfork,
    kfork_fork " fork", ...); `rows` and `cols` are the known keys in display
    order with their labels ([(key, label)]; keys not listed follow, in
    numeric order, labelled by `row_fmt`/`col_fmt`)."""

    def __init__(self, bench, pattern, rows=(), cols=(), row_fmt="%s", col_fmt="%s"):
        self.benches = [(bench, "")] if isinstance(bench, str) else list(bench)
        self.pattern = re.compile(pattern)
        self.rows, self.cols = list(rows), list(cols)
        self.row_fmt, self.col_fmt = row_fmt, col_fmt

    def cells(self, data, column):
        """{(row key, col key): Cell} of one column."""
        suffix = dict(self.benches)
        out = {}
        for (c, b, m), cell in data.items():
            mm = self.pattern.match(m) if c == column and b in suffix else None
            if mm:
                out[(mm.group("row"), mm.group("col") + suffix[b])] = cell
        return out

    @staticmethod
    def keys(known, seen, fmt):
        """The keys in display order with labels: the known ones that occur,
        then the others (numbers in numeric order)."""
        order = [(k, lbl) for (k, lbl) in known if k in seen]
        rest = sorted(set(seen) - {k for k, _ in known},
                      key=lambda k: (0, int(k), "") if k.isdigit() else (1, 0, k))
        return order + [(k, fmt % k) for k in rest]


PTSHARE_PAGES = Matrix(
    "ptshare_stat", r"^(?P<row>[a-z_]+)_(?P<col>\d+)sh$",
    rows=[("pt_pages", "PT pages"), ("pt_shared", "PT pages shared"),
          ("kib_saved", "KiB saved"), ("rss_kib", "RSS KiB"), ("pss_kib", "PSS KiB")],
    col_fmt="%s sh")
KFORK_STRATEGIES = [("copy", "copy"), ("cow", "cow"), ("share", "share"), ("sharepd", "sharepd")]
KFORK_RE = r"^(?P<col>[a-z]+)_(?P<row>\d+)M$"
KFORK = Matrix("kfork", KFORK_RE, cols=KFORK_STRATEGIES, row_fmt="%s MiB")
KFORK_PARTS = Matrix([("kfork_fork", " fork"), ("kfork_exit", " exit")], KFORK_RE,
                     cols=[(s + h, s + h) for (s, _) in KFORK_STRATEGIES
                           for h in (" fork", " exit")], row_fmt="%s MiB")


Target = collections.namedtuple("Target", "label num den limit across")
# Issue 19's goals. across: num of a column / num of the reference column (den
# unused); else num / den within each column. num, den: (bench, metric).
TARGETS = [
    Target("fork proc / linux", ("lat_proc", "fork"), None, 0.5, True),
    Target("exec proc / linux", ("lat_proc", "exec"), None, 0.5, True),
    Target("sh proc / linux", ("lat_proc", "sh"), None, 0.5, True),
    Target("write fault / linux", ("lat_pagefault", "write"), None, 0.4, True),
    Target("read fault / linux", ("lat_pagefault", "read"), None, 1.0, True),
    Target("fork 1 GiB / linux", ("forkrss", "fork_1024M"), None, 0.05, True),
    Target("fork 1 GiB / fork 0 MiB", ("forkrss", "fork_1024M"), ("forkrss", "fork_0M"), 1.1,
           False),
    Target("MADV_FREE cycle / rewrite", ("madvbench", "cycle_free"), ("madvbench", "cycle_keep"),
           1.2, False),
]

# Issue 37's goals for files (filebench on the same ext2 image and virtio
# disk): each metric at most Linux's, and a cold sequential read within 1.2x
# of reading the device itself (the limit under this QEMU).
FILE_METRICS = [("write 64 MiB + fsync", "write_fsync_64M"), ("read 64 MiB cold", "read_cold_64M"),
                ("read 64 MiB warm", "read_warm_64M"), ("random 4 KiB read", "rand_read_4k"),
                ("create + unlink", "create_unlink"), ("append 4 KiB + fsync", "fsync_4k")]
FILE_TARGETS = [Target(label + " / linux", ("filebench", m), None, 1.0, True)
                for (label, m) in FILE_METRICS] + [
    Target("read cold / device read", ("filebench", "read_cold_64M"),
           ("filebench", "dev_read_64M"), 1.2, False)]

# Issue 38's goals for mapped files (filebench, the same image): a cached
# file's faults and an exec of a cached binary at most half of Linux's,
# writing through a mapping and paging in a cold file at most Linux's.
MAP_METRICS = [("map 64 MiB cached, read", "map_warm_64M", 0.5),
               ("exec, binary cached", "exec_cached", 0.5),
               ("map 64 MiB, write + msync", "map_write_64M", 1.0),
               ("map 64 MiB cold, read", "map_cold_64M", 1.0)]
MAP_TARGETS = [Target(label + " / linux", ("filebench", m), None, limit, True)
               for (label, m, limit) in MAP_METRICS]


def target_ratio(t, data, col, ref):
    """Target t's ratio for column col (None when a reading is missing, or for
    an across-target on the reference itself)."""
    if t.across:
        if col == ref:
            return None
        num, den = data.get((col,) + t.num), data.get((ref,) + t.num)
    else:
        num, den = data.get((col,) + t.num), data.get((col,) + t.den)
    return num.median / den.median if num and den and den.median else None


def targets_grid(table, data, columns, ref):
    """Rows = targets, columns = limit then per column "ratio ok|MISSED"."""
    names = short_names(columns)[1]
    header = ["target", "limit"] + [names[c] for c in columns]
    body = []
    for t in table.items:
        row = [t.label, "<= %g" % t.limit]
        for col in columns:
            r = target_ratio(t, data, col, ref)
            row.append("-" if r is None else "%.3g %s" % (r, "ok" if r <= t.limit else "MISSED"))
        body.append(row)
    return header, body


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

    def has_data(self, data, column):
        """Whether `column` measured anything this table shows."""
        if self.layout == "matrix":
            return bool(self.items.cells(data, column))
        if self.layout == "targets":
            return any((column,) + t.num in data for t in self.items)
        return any((column, b, m) in data for (_, _, b, m) in self.expand(data))

    def columns(self, all_columns, data):
        """The columns this table shows, in run order: those matching the
        table's regex that measured something of it."""
        return [c for c in all_columns
                if (not self.columns_re or re.search(self.columns_re, c))
                and self.has_data(data, c)]


TABLES = [
    Table("lmbench", "Processes - times in microseconds - smaller is better "
          "(shape of seeds 000 and 004)", LMBENCH, layout="seed"),
    Table("side", "Side by side: microseconds per operation, median of all runs "
          "(±: (max-min)/2 as % of median)",
          lambda d: (LMBENCH[:2] + [("read", "lat_syscall", "read"),
                                    ("write", "lat_syscall", "write")] + LMBENCH[2:] +
                     PAGEFAULT + metric_items("madvbench", d, prefix="madv ") +
                     metric_items("mallocbench", d, prefix="malloc "))),
    Table("targets", "Issue 19's targets: ratios against Linux (the same binaries) and "
          "within each column", TARGETS, layout="targets", columns="^linux$|^pagoda",
          waits="lat_proc, lat_pagefault, forkrss and madvbench on linux and pagoda"),
    Table("files", "Files on an ext2 disk (filebench): milliseconds per 64 MiB, "
          "microseconds per operation (±: (max-min)/2 as % of median)",
          [(label, "filebench", m) for (label, m) in FILE_METRICS] +
          [("read 64 MiB of the device", "filebench", "dev_read_64M")]),
    Table("file_targets", "Issue 37's file targets: ratios against Linux (the same binary, "
          "the same disk image) and within each column", FILE_TARGETS, layout="targets",
          columns="^linux$|^pagoda", waits="filebench with a disk on linux and pagoda"),
    Table("mapped", "Mapped files on an ext2 disk (filebench): milliseconds per 64 MiB, "
          "microseconds per exec (±: (max-min)/2 as % of median)",
          [(label, "filebench", m) for (label, m, _) in MAP_METRICS]),
    Table("map_targets", "Issue 38's mapped-file targets: ratios against Linux (the same "
          "binary, the same disk image)", MAP_TARGETS, layout="targets",
          columns="^linux$|^pagoda", waits="filebench with a disk on linux and pagoda"),
    Table("forkrss", "fork+exit+wait latency (us) against memory touched by the parent",
          lambda d: [("%d MiB" % mib_of(m), b, m)
                     for (_, b, m) in metric_items("forkrss", d, key=mib_of)]),
    Table("ebizzy", "ebizzy, same work in every run: user, system, wall seconds "
          "and records/s, per allocation mode (shape of seed 002)",
          EBIZZY, layout="seed", groups=EBIZZY_MODES),
    Table("ptshare", "Page-table sharing: lmbench fork/exec/sh (us) without and with "
          "sharing (seed 000)", LMBENCH[2:], columns="ptshare=",
          waits="Pagoda columns ptshare=off/fork/all"),
    Table("ptshare_micro", "Page-table sharing: system call, page fault and madvise "
          "microseconds per operation (±: (max-min)/2 as % of median)",
          lambda d: (LMBENCH[:2] + PAGEFAULT[:2] + metric_items("madvbench", d, prefix="madv ")),
          columns="ptshare=", waits="Pagoda columns ptshare=off/fork/all"),
    Table("ptshare_pages", "Page-table pages in use, shared and saved with N shells "
          "running; RSS and PSS summed over the shells (seed 003)",
          PTSHARE_PAGES, layout="matrix", columns="ptshare=|^linux$|^pagoda$",
          waits="ptshare_stat on Pagoda columns ptshare=off/fork/all"),
    Table("paravirt", "Paravirt ops: lmbench times in microseconds (seed 004)",
          LMBENCH, layout="seed", columns="pv=|PARAVIRT=",
          waits="Pagoda columns PARAVIRT=0, pv=indirect, pv=patched"),
    Table("malloc_purge", "malloc purge policies: us per malloc+free pair, ebizzy "
          "malloc mode records/s",
          lambda d: metric_items("mallocbench", d) + [("ebizzy malloc rec/s", "ebizzy",
                                                       "malloc_rate")],
          columns="MALLOC_PURGE=", waits="Pagoda columns MALLOC_PURGE=..."),
    Table("kfork", "In-kernel fork benchmark (bench=fork): microseconds per fork+exit of an "
          "address space of N MiB, per strategy", KFORK, layout="matrix",
          waits="the kernel's bench=fork (BENCH kfork <strategy>_<N>M lines)"),
    Table("kfork_parts", "In-kernel fork benchmark: the two halves, microseconds to "
          "duplicate (fork) and to tear down (exit)", KFORK_PARTS, layout="matrix",
          waits="the kernel's bench=fork (BENCH kfork_fork/kfork_exit lines)"),
]
TABLE_NAMES = [t.name for t in TABLES]


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


def short_names(columns):
    """(corner, {column: label}): labels without the common "pagoda " when every
    column has it (make bench's tables), and without a common "KEY=" when every
    one is a single KEY=VALUE word with the same KEY (ptshare=off, ptshare=all:
    "off", "all"), which then goes to the table's top left corner."""
    prefix = "pagoda "
    names = {c: c for c in columns}
    if columns and all(c.startswith(prefix) for c in columns):
        names = {c: c[len(prefix):] for c in columns}
    keys = {n.partition("=")[0] + "=" for n in names.values() if "=" in n and " " not in n}
    if len(columns) > 1 and len(keys) == 1 and all("=" in n and " " not in n
                                                   for n in names.values()):
        key = keys.pop()
        return key, {c: n[len(key):] for c, n in names.items()}
    return "", names


def ratio_label(num, den):
    """Header of a ratio column: "fork/off" for "ptshare=fork" over "ptshare=off",
    else "NUM / DEN"."""
    a, b = num.partition("="), den.partition("=")
    if a[1] and b[1] and a[0] == b[0] and " " not in a[0]:
        return "%s/%s" % (a[2], b[2])
    return "%s / %s" % (num, den)


def matrix_grid(table, data, columns):
    """A matrix table: rows = column x row key (rows of one column together;
    the column name left out when there is only one), columns = col keys."""
    mx, (corner, name) = table.items, short_names(columns)
    cells = {col: mx.cells(data, col) for col in columns}
    seen_rows = {r for cs in cells.values() for (r, _) in cs}
    seen_cols = {c for cs in cells.values() for (_, c) in cs}
    col_keys = Matrix.keys(mx.cols, seen_cols, mx.col_fmt)
    header = [corner] + [lbl for (_, lbl) in col_keys]
    body, width = [], max(len(n) for n in name.values())
    for (rk, rlabel) in Matrix.keys(mx.rows, seen_rows, mx.row_fmt):
        for col in columns:
            row = [rlabel if len(columns) == 1 else "%-*s  %s" % (width, name[col], rlabel)]
            row += [fmt(cells[col][(rk, ck)].median) if (rk, ck) in cells[col] else "-"
                    for (ck, _) in col_keys]
            if any(cell != "-" for cell in row[1:]):
                body.append(row)
    return header, body


def grid(table, data, columns, ref):
    """The table as a header row and body rows of strings. Ratios divide by the
    column `ref`, or by the table's first column when ref is not among them.
    Seed-layout rows without any number are left out."""
    if table.layout == "matrix":
        return matrix_grid(table, data, columns)
    if table.layout == "targets":
        return targets_grid(table, data, columns, ref)
    items, (corner, name) = table.expand(data), short_names(columns)
    ref = ref if ref in columns else columns[0]
    if table.layout == "seed":
        header = [corner] + [lbl for (_, lbl, _, _) in items[:len(items) // len(table.groups or [""])]]
        body = []
        for g in table.groups or [""]:
            for col in columns:
                row = [(name[col] + " " + g).strip()]
                for (gg, _, b, m) in items:
                    if gg == g:
                        c = data.get((col, b, m))
                        row.append(fmt(c.median) if c else "-")
                if any(cell != "-" for cell in row[1:]):
                    body.append(row)
        return header, body
    others = [c for c in columns if c != ref]
    header = [corner] + [name[c] for c in columns] + [ratio_label(name[c], name[ref]) for c in others]
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


def render_all(data, all_columns, ref, out, names=None):
    """Every table (or those named, in that order) as text, and
    OUT/table_NAME.csv for each one with data."""
    parts = []
    by_name = {t.name: t for t in TABLES}
    for t in [by_name[n] for n in names] if names else TABLES:
        cols = t.columns(all_columns, data)
        parts.append("== %s" % t.title)
        header, body = grid(t, data, cols, ref) if cols else ([], [])
        if not body or all(cell == "-" for r in body for cell in r[1:]):
            parts.append("   (not measured yet: needs %s)\n" % (t.waits or "data"))
            continue
        parts.append(render(header, body) + "\n")
        with open(os.path.join(out, "table_%s.csv" % t.name), "w", newline="") as f:
            csv.writer(f).writerows([header] + body)
    return "\n".join(parts)
