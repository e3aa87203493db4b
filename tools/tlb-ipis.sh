#!/usr/bin/env bash
# tools/tlb-ipis.sh [CPUS] [ROUNDS] -- TLB shootdown IPI counts of a
# fork-heavy and an munmap-heavy run (user/tlbstorm.c), with TLB
# batching on (the default) and off (tlb=nobatch), on CPUS guest CPUs
# (default 4), processes on every CPU (smp_sched=1). Prints the tlbstorm lines of each boot. The numbers are
# counts, not times: they do not depend on the host's load.
set -eu
cpus=${1:-4} rounds=${2:-100}
cd "$(dirname "$0")/.."
for mode in batch nobatch; do
	opt=""
	[ "$mode" = nobatch ] && opt="tlb=nobatch"
	echo "== tlb=$mode, $cpus CPUs"
	make -s run CPUS="$cpus" CMDLINE="smp_sched=1 $opt" CMD="tlbstorm $rounds" 2>&1 |
		grep '^tlbstorm:' || { echo "tlb-ipis: the run failed"; exit 1; }
done
