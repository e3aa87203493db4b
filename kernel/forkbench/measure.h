/* kernel/forkbench/measure.h -- the in-kernel fork benchmark: time duplicating and
 * tearing down address spaces of given sizes under each fork strategy
 * (request, results and their text form: libc/include/pagoda/forkbench.h).
 * Used by the bench=fork boot mode (kernel/forkbench/bootmode.c) and by the
 * pagoda_forkbench system call (kernel/sys_pagoda.c). */
#ifndef KERNEL_FORKBENCH_MEASURE_H
#define KERNEL_FORKBENCH_MEASURE_H

#include "lib/types.h"
#include "libc/include/pagoda/forkbench.h"

/* 0 if req is well formed, else -EINVAL (limits in pagoda/forkbench.h). */
int forkbench_check_req(const struct pagoda_forkbench_req *req);

/* Run req and fill *res: for each size build a parent with that many MiB
 * written, then for each asked strategy time req->runs forks (as_fork_with)
 * and teardowns of the child, checking each run. Cells that do not fit in
 * free memory are PAGODA_FB_SKIPPED, failed checks PAGODA_FB_FAILED (both
 * with a note). size_done (may be NULL) is called after each size i, so
 * results can be shown while the next size runs. Returns 0, -EINVAL (bad
 * req), or -ENOMEM (no cell fitted). */
int forkbench_run(const struct pagoda_forkbench_req *req, struct pagoda_forkbench_result *res,
		  void (*size_done)(const struct pagoda_forkbench_result *res, uint32_t i));

#endif
