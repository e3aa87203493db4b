#!/usr/bin/env bash
# tools/bench/ebizzy-test.sh [BUILD] -- make test's check of threaded ebizzy
# (user/bench/ebizzy.c) on Pagoda: boot with processes on every CPU
# (smp_sched=1) on 2 CPUs and run, from both libcs' builds (the static musl
# one, which bench-ebizzy also boots on Linux, and the newlib one with
# Pagoda's pthread layer), a fixed amount of work with -t 4 in every mode
# (mmap, free, dontneed, malloc), then a 1-second timed run (-S 1) with its
# default thread count (2 per online CPU: 4). Checks that each run reported
# its thread count, that the fixed runs looked up exactly the records asked
# for (iterations x searches, shared out among the threads), that the timed run
# looked up some and that every mode reported every metric (%CPU included).
# It asserts no speed.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
out=$build/test/bench-ebizzy
rm -rf "$out" && mkdir -p "$out/bin"
make -s --no-print-directory B="$build" bench-musl bench-pagoda
cp "$build/bench/musl/ebizzy" "$out/bin/ebizzy"
cp "$build/bench/pagoda/ebizzy" "$out/bin/ebizzy-newlib"
tools/bench/pagoda.sh prepare "$build" "$out/bin" ebizzytest
fixed='-t 4 -n 4 -i 24 -k 3 --runs 1 -m mmap -m free -m dontneed -m malloc'
CPUS=2 timeout 180 tools/bench/pagoda.sh boot "$build" 256M 'libc=ebizzytest smp_sched=1' --init \
	"echo MUSL && /bin/ebizzy $fixed && echo NEWLIB && /bin/ebizzy-newlib $fixed && \
echo TIMED && /bin/ebizzy -n 4 -S 1 --runs 1 -m mmap && echo EBIZZY-OK" > "$out/console.log" || true
grep -q '^EBIZZY-OK' "$out/console.log" || { echo "bench-ebizzy: ebizzy failed (log $out/console.log)"; exit 1; }
python3 - "$out/console.log" <<'PY'
import sys
sys.path.insert(0, "tools/bench")
import bench
runs, part = {}, None
for line in open(sys.argv[1], errors="replace"):
    line = line.strip()
    if line in ("MUSL", "NEWLIB", "TIMED"):
        part = line
        runs[part] = {}
    r = bench.parse_line(line) if part else None
    if r and r["bench"] == "ebizzy":
        runs[part][r["metric"]] = r["median"]
bad = []
def want(part, metric, ok, what):
    v = runs.get(part, {}).get(metric)
    if v is None or not ok(v):
        bad.append("%s: ebizzy %s = %s, want %s" % (part, metric, v, what))
for part in ("MUSL", "NEWLIB"):
    want(part, "threads", lambda v: v == 4, "4 (-t 4)")
    for mode in ("mmap", "free", "dontneed", "malloc"):
        want(part, mode + "_records", lambda v: v == 24 * 3, "72 (24 iterations x 3 searches)")
        want(part, mode + "_rate", lambda v: v > 0, "> 0")
        for m in ("user", "sys", "wall", "cpu"):
            want(part, "%s_%s" % (mode, m), lambda v: v >= 0, ">= 0")
want("TIMED", "threads", lambda v: v == 4, "4 (2 per CPU on -smp 2)")
want("TIMED", "mmap_records", lambda v: v > 0, "> 0")
want("TIMED", "mmap_rate", lambda v: v > 0, "> 0")
for b in bad:
    print("bench-ebizzy: " + b)
sys.exit(1 if bad else 0)
PY
echo "bench-ebizzy: 4 threads on 2 CPUs, every record found, both libcs"
