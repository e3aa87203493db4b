#!/bin/sh
# tools/bench/suite.sh -- run every benchmark once, in the guest (Linux now,
# Pagoda later). Prints "BENCHPROG NAME" before each program (progress for
# tools/bench/bench.py), the programs' BENCH lines, "BENCHFAIL NAME STATUS"
# for a program that failed, and "BENCHDONE" at the end.
# Environment: BENCH_DIR (the binaries), BENCH_ARGS (common options, e.g.
# "--runs 5 --ms 100"), FORKRSS_MIB (forkrss sizes, e.g. "0 16 64").
d=${BENCH_DIR:-/bench}
args=${BENCH_ARGS:-}

# run NAME [ARGS...]: run one benchmark with the common options.
run() {
	name=$1
	shift
	echo "BENCHPROG $name"
	# shellcheck disable=SC2086 # args is a list of options
	"$d/$name" "$@" $args || echo "BENCHFAIL $name $?"
}

echo "BENCHSTART"
run lat_syscall
run lat_proc "$d/hello"
run lat_pagefault
# shellcheck disable=SC2086 # a list of sizes
run forkrss ${FORKRSS_MIB:-0 16 64}
run madvbench
run ebizzy
run mallocbench
echo "BENCHDONE"
