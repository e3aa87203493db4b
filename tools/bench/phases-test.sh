#!/usr/bin/env bash
# tools/bench/phases-test.sh [BUILD] -- make test's check of the per-phase TSC
# counters (mm/frame/phasetime.h, /proc/phasetime): boot the kernel built with
# them (PHASETIME=1, build-phases/) with `phasetime` and BUILD's initrd,
# run user/bench/phases --quick (the static musl build) and check that every
# workload reported its phases with the right COUNTS (one fork, one as_fork,
# one batch of entry changes, one kernel stack taken and given back, one
# teardown, one exit and one reap per fork; at least 256 frame allocations and 256 PTE
# writes per 1 MiB written, and as many per 1 MiB read; no lookup walk of
# its own (fault_walk) in such a first-touch fault, read or write: the map
# walk is the only one; one marking pass and one flush per MADV_FREE of a
# chunk whose lazy-free records exist already). It asserts no time.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-${BUILD:-build}}
out=$build/test/bench-phases
mkdir -p "$out"
make -s --no-print-directory B="$build" bench-musl phases-kernel
tools/bench/pagoda.sh prepare "$build" "$build/bench/musl" phasetest
PAGODA_KERNEL=build-phases/kernel.elf \
timeout 120 tools/bench/pagoda.sh boot "$build" 256M 'libc=phasetest phasetime' --init \
	'/bin/phases --quick && echo PHASES-OK' \
	> "$out/console.log" || true
grep -q '^PHASES-OK' "$out/console.log" || { echo "bench-phases: phases failed (log $out/console.log)"; exit 1; }
! grep '^BENCHSKIP' "$out/console.log" || { echo "bench-phases: skipped"; exit 1; }
python3 tools/bench/bench.py check "$out/console.log" --expect \
phases_fault:fault,phases_fault:fault_vma,phases_fault:fault_alloc,\
phases_fault:fault_map,phases_fault:zero_frame,phases_fork:fork,phases_fork:fork_as,\
phases_fork:fork_as_create,phases_fork:fork_vma,phases_fork:exit,phases_fork:exit_as,\
phases_fork:wait_reap,phases_fork:fault_fork_child,phases_fork:fault_fork_parent,\
phases_fork:fork_entries,phases_fork:kstack_alloc,phases_fork:kstack_free,phases_fork:pgt_destroy,\
phases_fork:op,phases_fault:op,phases_fork_big:fork_as,phases_madv_free:lazyfree,\
phases_madv_free:lazyfree_flush
python3 - "$out/console.log" <<'PY'
import sys
sys.path.insert(0, "tools/bench")
import bench
got = {}
for line in open(sys.argv[1]):
    r = bench.parse_line(line)
    if r:
        got[(r["bench"], r["metric"])] = r["median"]
want = [("phases_fork", "fork_n", "==", 1), ("phases_fork", "fork_as_n", "==", 1),
        ("phases_fork", "exit_as_n", "==", 1), ("phases_fork", "wait_reap_n", "==", 1),
        ("phases_fork", "fork_entries_n", "==", 1), ("phases_fork", "kstack_alloc_n", "==", 1),
        ("phases_fork", "kstack_free_n", "==", 1), ("phases_fork", "pgt_destroy_n", "==", 1),
        ("phases_fork_big", "fork_n", "==", 1), ("phases_fault", "fault_alloc_n", ">=", 256),
        ("phases_fault", "fault_map_n", ">=", 256), ("phases_fault", "fault_n", ">=", 256),
        ("phases_fault_read", "fault_map_n", ">=", 256), ("phases_fault_read", "fault_n", ">=", 256),
        ("phases_madv_free", "lazyfree_n", "==", 1), ("phases_madv_free", "lazyfree_flush_n", "==", 1)]
# a phase that never ran is not reported: it counts 0 for "<". A lookup per
# page would be 256; the batch's other faults (its stack, libc's data) may walk
fewer = [("phases_fault", "fault_walk_n", "<", 32), ("phases_fault_read", "fault_walk_n", "<", 32)]
bad = [w for w in want if (w[0], w[1]) not in got or
       not (got[(w[0], w[1])] == w[3] if w[2] == "==" else got[(w[0], w[1])] >= w[3])]
bad += [w for w in fewer if got.get((w[0], w[1]), 0) >= w[3]]
for b, m, op, v in bad:
    print("bench-phases: %s %s = %s, want %s %s" % (b, m, got.get((b, m)), op, v))
sys.exit(1 if bad else 0)
PY
echo "bench-phases: every phase counted"
