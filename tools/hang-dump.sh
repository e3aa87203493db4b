#!/usr/bin/env bash
# tools/hang-dump.sh [-n RUNS] [-t SECONDS] CMD... -- catch a hang and see it.
#
# Boots `make run CMD="CMD..."` (with CPUS, MEM, CMDLINE from the
# environment, as make run takes them) and QEMU's gdbstub on :1234, up to
# RUNS times (default 5). A run that has not ended after SECONDS (default
# 180) counts as hung: gdb attaches and prints pg-ps, every sleeping
# process's wait channel and kernel call chain (tools/gdb/sleepers.py),
# pg-cpus and every CPU's backtrace, into build/hang-dump.txt; then that
# QEMU (only it: its own process group) is killed and the script exits 1.
# Exits 0 when no run hung. Each run's console: build/hang-run.N.log.
#
#   CPUS=2 tools/hang-dump.sh -n 3 threadtests
set -u
runs=5 secs=180
while getopts n:t: o; do
	case $o in n) runs=$OPTARG ;; t) secs=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: tools/hang-dump.sh [-n RUNS] [-t SECONDS] CMD..." >&2; exit 2; }
cd "$(dirname "$0")/.."
for i in $(seq 1 "$runs"); do
	log=build/hang-run.$i.log
	setsid make run QEMUFLAGS=-s CMD="$*" > "$log" 2>&1 &
	pid=$!
	for _ in $(seq 1 "$secs"); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "hang-dump: run $i ended: $(grep -cE '^TEST .* PASS' "$log") tests passed"
		continue
	fi
	echo "hang-dump: run $i hung after: $(grep -E '^TEST ' "$log" | tail -n1)"
	gdb -batch -nx -ex "set pagination off" -ex "file build/kernel.elf" \
		-ex "source tools/gdb/gdbinit" -ex "target remote :1234" -ex "pg-ps" \
		-ex "source tools/gdb/sleepers.py" -ex "pg-cpus" -ex "info threads" \
		-ex "thread apply all bt 40" > build/hang-dump.txt 2>&1
	kill -- -"$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "hang-dump: gdb's view in build/hang-dump.txt"
	exit 1
done
exit 0
