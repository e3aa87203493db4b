/*
 * user/bench/forkrss.c -- fork+exit+wait latency against the amount of
 * memory the parent has touched (the cost page-table copying or sharing
 * changes). For each size: map and write every page, then time fork.
 * Usage: forkrss [--quick] [--runs N] [--ms N] [MIB...]
 * Sizes default to 0 16 64 256 1024 (0 1 in quick mode); give smaller ones
 * when the machine has less RAM. Metric names: fork_<MIB>M.
 */
#include "bench_mem.h"
#include "bench_proc.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

static const unsigned long default_sizes[] = { 0, 16, 64, 256, 1024 };
static const unsigned long quick_sizes[] = { 0, 1 };

/* Touch `mib` MiB, time fork with it, release it. */
static void measure(unsigned long mib)
{
	size_t len = mib * BENCH_MIB;
	void *p = len ? bench_map(len) : NULL;
	char metric[32];

	if (p)
		bench_touch(p, len, BENCH_TOUCH_WRITE);
	snprintf(metric, sizeof metric, "fork_%luM", mib);
	bench_time_op("forkrss", metric, bench_fork_exit_wait, NULL);
	if (p)
		bench_unmap(p, len);
}

/* Measure every size given (or the defaults). */
int main(int argc, char **argv)
{
	const unsigned long *sizes = default_sizes;
	size_t i, n = sizeof default_sizes / sizeof default_sizes[0];

	bench_init(&argc, argv, "forkrss");
	if (bench_quick()) {
		sizes = quick_sizes;
		n = sizeof quick_sizes / sizeof quick_sizes[0];
	}
	if (argc > 1) {
		for (i = 1; i < (size_t)argc; i++)
			measure(strtoul(argv[i], NULL, 10));
	} else {
		for (i = 0; i < n; i++)
			measure(sizes[i]);
	}
	return bench_finish();
}
