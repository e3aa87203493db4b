#!/usr/bin/env python3
"""tools/bench/bench.py -- run the benchmark suite on one or more systems, collect
the BENCH lines into CSV, print tables in the seeds' shapes and draw plots.

    bench.py check [FILE...]        every BENCH line well formed, at least one
                                    (--expect BENCH:METRIC,... must all appear;
                                    --suite: a suite log where every program ran,
                                    printed BENCH lines of its own, none failed and,
                                    unless --allow-skips, none skipped a metric;
                                    --allow-skip REGEX: skips of "BENCH METRIC"
                                    matching REGEX are fine)
    bench.py run --out DIR --system 'NAME|COMMAND' [--system ...] [--rounds N]
                                    boot each system in turn, round after round
                                    (so machine noise hits all of them), then report
    bench.py report --out DIR       tables and plots from DIR/results.csv
    bench.py configs --out DIR --build B --nopv-build B2 [--configs NAMES] [--rounds N]
                                    `run` over Pagoda's configurations (tools/bench/
                                    configs.py: ptshare, pv, malloc purge, in-kernel
                                    fork benchmark), each running only what its
                                    tables need; what `make bench` does

A system is a named column (e.g. "linux", "pagoda ptshare=off", "pagoda pv=patched",
"pagoda MALLOC_PURGE=eager"); COMMAND boots it and prints its serial console on
stdout, where the suite program (user/bench/suite.c) prints BENCHSTART/BENCHPROG/
BENCH/BENCHSKIP/BENCHFAIL/BENCHDONE lines. Failed programs, skipped metrics and
boots that did not finish are listed in OUT/problems.txt and after the tables;
`run` exits 1 when a program failed or a boot did not finish.
Tables are generic over columns: later configurations appear without code changes;
--tables NAME,... picks which tables to print (default: all).
"""
import argparse
import collections
import csv
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tables   # noqa: E402
import plots    # noqa: E402
import configs  # noqa: E402

NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf"
BENCH_RE = re.compile(r"^BENCH (\S+) (\S+) (\S+) median=(%s) min=(%s) max=(%s) runs=(\d+)$"
                      % (NUM, NUM, NUM))
FIELDS = ["column", "round", "bench", "metric", "unit", "median", "min", "max", "runs"]

# One system to boot: its column name, the shell command that boots it, the
# seconds one boot should take (None: unknown) and whether it boots in the
# first round only (a benchmark that repeats and compares within one boot).
System = collections.namedtuple("System", "name command estimate once")


def parse_line(line):
    """A dict for a well-formed BENCH line; None for other lines; ValueError for a
    line that starts with "BENCH " but breaks the format or min <= median <= max."""
    line = line.rstrip("\r\n")
    if not line.startswith("BENCH "):
        return None
    m = BENCH_RE.match(line)
    if not m:
        raise ValueError("malformed BENCH line: %r" % line)
    r = dict(zip(["bench", "metric", "unit", "median", "min", "max", "runs"], m.groups()))
    for k in ("median", "min", "max"):
        r[k] = float(r[k])
    r["runs"] = int(r["runs"])
    if not (r["min"] <= r["median"] <= r["max"]) or r["runs"] < 1:
        raise ValueError("inconsistent BENCH line: %r" % line)
    return r


def suite_programs(line):
    """The program list of a "BENCHSTART prog..." line, else None."""
    return line.split()[1:] if line.startswith("BENCHSTART") else None


def suite_errors(lines, seen, allow_skips, allow_skip_re=""):
    """What is wrong with a suite log: no BENCHSTART, a program it announced that
    did not run or reported nothing, a BENCHFAIL line, a BENCHSKIP line (unless
    allowed: all of them, or those whose "bench metric" matches allow_skip_re),
    a missing BENCHDONE."""
    def bad(ln):
        if ln.startswith("BENCHFAIL "):
            return True
        if not ln.startswith("BENCHSKIP ") or allow_skips:
            return False
        return not (allow_skip_re and re.match(allow_skip_re, " ".join(ln.split()[1:3])))
    errors = ["suite: " + ln.strip() for ln in lines if bad(ln)]
    starts = [p for p in map(suite_programs, lines) if p is not None]
    if not starts:
        errors.append("suite: no BENCHSTART line")
    ran = {ln.split()[1] for ln in lines if ln.startswith("BENCHPROG ")}
    benches = {s.split(":")[0] for s in seen}
    programs = starts[0] if starts else []
    errors += ["suite: %s did not run" % p for p in programs if p not in ran]
    errors += ["suite: %s printed no BENCH line" % p for p in programs
               if p in ran and p not in benches]
    if not any(ln.strip() == "BENCHDONE" for ln in lines):
        errors.append("suite: no BENCHDONE (the suite did not finish)")
    return errors


def cmd_check(a):
    """Exit status 0 when every input has only well-formed BENCH lines, at least
    one, every --expect'ed BENCH:METRIC, and (--suite) a complete suite run."""
    seen, errors, lines = set(), [], []
    for f in a.files or ["-"]:
        for n, line in enumerate(sys.stdin if f == "-" else open(f), 1):
            lines.append(line)
            try:
                r = parse_line(line)
            except ValueError as e:
                errors.append("%s:%d: %s" % (f, n, e))
                continue
            if r:
                seen.add("%s:%s" % (r["bench"], r["metric"]))
    if a.suite:
        errors += suite_errors(lines, seen, a.allow_skips, a.allow_skip)
    want = [w for w in a.expect.split(",") if w]
    errors += ["missing BENCH %s" % w for w in want if w not in seen]
    if not seen:
        errors.append("no BENCH lines")
    for e in errors:
        print("bench check: " + e, file=sys.stderr)
    if not errors:
        print("bench check: %d results well formed" % len(seen))
    return 1 if errors else 0


class Progress:
    """One status line per event: which system and round, which program, how
    long so far and, once every remaining boot has an estimate (the given one
    or the measured length of that system's last boot), about how long is left."""

    def __init__(self, plan):
        self.plan, self.boot, self.t0 = plan, 0, time.time()
        self.estimate = {name: est for (name, est) in plan if est}
        self.programs = []

    def start(self, column, rnd):
        self.boot += 1
        self.column, self.rnd, self.prog, self.tb = column, rnd, "boot", time.time()
        self.say("booting")

    def finish(self):
        """The current boot ended: its length estimates the column's next boots."""
        self.estimate[self.column] = time.time() - self.tb

    def left(self):
        """Seconds the remaining boots should take, or None when unknown."""
        rest = [name for (name, _) in self.plan[self.boot:]]
        if any(name not in self.estimate for name in rest):
            return None
        spent = time.time() - self.tb
        return sum(self.estimate[n] for n in rest) + max(0, self.estimate.get(self.column, 0) - spent)

    def say(self, what):
        left = self.left()
        eta = "  (~%dm%02ds left)" % divmod(int(left), 60) if left is not None else ""
        print("[%3ds] boot %d/%d  %-22s round %d  %s%s" % (
            time.time() - self.t0, self.boot, len(self.plan), self.column, self.rnd, what, eta),
            flush=True)

    def line(self, line):
        programs = suite_programs(line)
        if programs is not None:
            self.programs = programs
        elif line.startswith("BENCHPROG "):
            self.prog = line.split()[1]
            idx = self.programs.index(self.prog) + 1 if self.prog in self.programs else 0
            self.say("%s (%d/%d)" % (self.prog, idx, len(self.programs)))
        elif line.startswith(("BENCHFAIL ", "BENCHSKIP ")):
            self.say(line)


def boot_once(column, command, rnd, out, progress, timeout):
    """Run one system's COMMAND, log its console to OUT/logs; returns its results
    (dicts), its problems (strings: BENCHFAIL/BENCHSKIP lines, an unfinished
    suite) and whether it counts as a failure (a program failed or no BENCHDONE).
    A boot still running after `timeout` seconds is killed with its children."""
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    log = os.path.join(out, "logs", "%s-r%d.log" % (re.sub(r"[^\w=.-]+", "_", column), rnd))
    progress.start(column, rnd)
    rows, done, problems = [], False, []
    with open(log, "w") as lf:
        p = subprocess.Popen(command, shell=True, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (p.pid, signal.SIGKILL))
        timer.start()
        for raw in p.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            lf.write(line + "\n")
            progress.line(line)
            done = done or line == "BENCHDONE"
            if line.startswith(("BENCHFAIL ", "BENCHSKIP ")):
                problems.append("%s round %d: %s" % (column, rnd, line))
            try:
                r = parse_line(line)
            except ValueError as e:
                progress.say(str(e))
                r = None
            if r:
                r.update(column=column, round=rnd)
                rows.append(r)
        p.wait()
        timer.cancel()
    progress.finish()
    if not done:
        problems.append("%s round %d: the suite did not finish (exit status %d, log %s)"
                        % (column, rnd, p.returncode, log))
    failure = not done or any("BENCHFAIL" in pr for pr in problems)
    progress.say("%d results, %s (log %s)" % (
        len(rows), "INCOMPLETE" if failure else "complete", log))
    return rows, problems, failure


def parse_systems(specs):
    """--system 'NAME|COMMAND' arguments -> [(name, command, None)]."""
    systems = []
    for s in specs:
        name, sep, cmd = s.partition("|")
        if not sep or not name.strip() or not cmd.strip():
            sys.exit("bench run: --system wants 'NAME|COMMAND', got %r" % s)
        systems.append(System(name.strip(), cmd.strip(), None, False))
    return systems


def boot_plan(systems, rounds):
    """The boots in order: (round, System), each system once per round (or
    only in round 1)."""
    return [(rnd, s) for rnd in range(1, rounds + 1) for s in systems
            if rnd == 1 or not s.once]


def run_rounds(out, systems, rounds, timeout):
    """Boot every System, round after round (boot_plan), into
    OUT/results.csv and OUT/problems.txt; True when a program failed or a
    boot did not finish."""
    os.makedirs(out, exist_ok=True)
    plan = boot_plan(systems, rounds)
    progress = Progress([(s.name, s.estimate) for (_, s) in plan])
    failed, problems = False, []
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        for rnd, s in plan:
            rows, probs, failure = boot_once(s.name, s.command, rnd, out, progress, timeout)
            failed, problems = failed or failure, problems + probs
            w.writerows({k: r[k] for k in FIELDS} for r in rows)
            f.flush()
    with open(os.path.join(out, "problems.txt"), "w") as f:
        f.writelines(p + "\n" for p in problems)
    print("[%3ds] all %d boots done" % (time.time() - progress.t0, len(progress.plan)), flush=True)
    return failed


def cmd_run(a):
    """Boot every system, round after round, write results.csv, report."""
    failed = run_rounds(a.out, parse_systems(a.system), a.rounds, a.timeout)
    report(a.out, a.ref, a.tables)
    return 1 if failed else 0


def cmd_configs(a):
    """`run` over Pagoda's configurations (configs.py), then their tables."""
    chosen = configs.select(a.configs.split())
    systems = [System(*s) for s in configs.systems(chosen, a.build, a.nopv_build, a.mem,
                                                   a.kfork_opts, a.kfork_mem)]
    plan = boot_plan(systems, a.rounds)
    est = sum(s.estimate for (_, s) in plan)
    print("bench: %d configurations, %d rounds: %d boots, about %dm%02ds on a quiet "
          "2-core machine; logs in %s/logs" % ((len(systems), a.rounds, len(plan))
                                            + divmod(est, 60) + (a.out,)), flush=True)
    failed = run_rounds(a.out, systems, a.rounds, a.timeout)
    report(a.out, a.ref, a.tables or ",".join(configs.TABLES))
    return 1 if failed else 0


def load(path):
    """results.csv -> {(column, bench, metric): aggregate over rounds}, columns in
    first-seen order. Aggregate: median of the rounds' medians, min of mins, max
    of maxes, total runs."""
    per, columns = {}, []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["column"] not in columns:
                columns.append(r["column"])
            per.setdefault((r["column"], r["bench"], r["metric"]), []).append(r)
    data = {}
    for key, rs in per.items():
        meds = sorted(float(r["median"]) for r in rs)
        n = len(meds)
        data[key] = tables.Cell(
            median=meds[n // 2] if n % 2 else (meds[n // 2 - 1] + meds[n // 2]) / 2,
            min=min(float(r["min"]) for r in rs), max=max(float(r["max"]) for r in rs),
            runs=sum(int(r["runs"]) for r in rs), unit=rs[0]["unit"])
    return data, columns


def report(out, ref, names=""):
    """Print every table (or those of the comma-separated names), write them to
    OUT/tables.txt and OUT/*.csv, draw plots."""
    data, columns = load(os.path.join(out, "results.csv"))
    if not columns:
        sys.exit("bench report: no results in %s/results.csv" % out)
    if ref and ref not in columns:
        sys.exit("bench report: reference column %r not among %s" % (ref, columns))
    names = [n for n in names.split(",") if n]
    unknown = [n for n in names if n not in tables.TABLE_NAMES]
    if unknown:
        sys.exit("bench report: unknown tables %s (known: %s)" % (unknown, tables.TABLE_NAMES))
    text = tables.render_all(data, columns, ref or columns[0], out, names)
    print(text)
    with open(os.path.join(out, "tables.txt"), "w") as f:
        f.write(text + "\n")
    for png in plots.draw_all(data, columns, out):
        print("plot: " + png)
    problems = os.path.join(out, "problems.txt")
    if os.path.exists(problems) and os.path.getsize(problems):
        print("\nProblems (also in %s):\n%s" % (problems, open(problems).read().rstrip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("files", nargs="*")
    c.add_argument("--expect", default="")
    c.add_argument("--suite", action="store_true")
    c.add_argument("--allow-skips", action="store_true")
    c.add_argument("--allow-skip", default="", metavar="REGEX",
                   help='skips of "BENCH METRIC" matching REGEX are not errors')
    r = sub.add_parser("run")
    r.add_argument("--out", required=True)
    r.add_argument("--system", action="append", required=True)
    r.add_argument("--rounds", type=int, default=1)
    r.add_argument("--ref", default="", help="column the ratios divide by (default: first)")
    r.add_argument("--timeout", type=int, default=900, help="seconds one boot may take")
    r.add_argument("--tables", default="", help="tables to print, comma-separated")
    g = sub.add_parser("configs")
    g.add_argument("--out", required=True)
    g.add_argument("--build", required=True, help="build directory (kernel, rootfs, pagoda-boot)")
    g.add_argument("--nopv-build", required=True, help="build directory of the PARAVIRT=0 kernel")
    g.add_argument("--configs", default=" ".join(configs.GROUPS),
                   help="configurations or groups, separated by spaces")
    g.add_argument("--mem", default="2G")
    g.add_argument("--rounds", type=int, default=2)
    g.add_argument("--kfork-opts", default="", help="more kernel options of the bench=fork boot")
    g.add_argument("--kfork-mem", default="3G", help="memory of the bench=fork boot")
    g.add_argument("--ref", default="")
    g.add_argument("--timeout", type=int, default=900, help="seconds one boot may take")
    g.add_argument("--tables", default="", help="tables to print (default: configs.TABLES)")
    p = sub.add_parser("report")
    p.add_argument("--out", required=True)
    p.add_argument("--ref", default="")
    p.add_argument("--tables", default="", help="tables to print, comma-separated")
    a = ap.parse_args()
    if a.cmd == "check":
        return cmd_check(a)
    if a.cmd == "run":
        return cmd_run(a)
    if a.cmd == "configs":
        return cmd_configs(a)
    report(a.out, a.ref, a.tables)
    return 0


if __name__ == "__main__":
    sys.exit(main())
