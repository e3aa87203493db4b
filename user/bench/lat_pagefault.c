/*
 * user/bench/lat_pagefault.c -- cost of the first touch of anonymous pages:
 * map a region, touch one byte per page, unmap; only the touching is timed.
 *   write      first store to each page (allocate and map a private page)
 *   read       first load of each page (may map the shared zero page)
 *   write_thp  write, read without madvise: the kernel's default page size
 *   read_thp
 * write and read advise MADV_NOHUGEPAGE first, so every page takes its own
 * 4 KiB fault on every kernel: the fault path itself, compared like for
 * like. The _thp rows leave the choice to the kernel: Linux built with
 * transparent huge pages "always" (Debian's default) maps each aligned
 * 2 MiB of the region with one fault (a huge page for a write, the huge
 * zero page for a read); Pagoda has no huge user pages, so its _thp rows
 * repeat its 4 KiB ones. docs/benchmarks.md shows both.
 * Reported per page. Usage: lat_pagefault [--quick] [--runs N] [--ms N] [MIB]
 * MIB is the region size (default 4; 1 page in quick mode).
 */
#include "bench_mem.h"
#include "bench_util.h"

#include <stdlib.h>

#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15 /* the Linux x86-64 value */
#endif

#define DEFAULT_REGION_MIB 4

/* The region size, how it is touched, and whether huge pages are refused. */
struct pf_ctx {
	size_t len;
	enum bench_touch_kind kind;
	int small_pages;
};

/* Map, touch (timed) and unmap the region `iters` times. */
static uint64_t pf_body(void *arg, uint64_t iters)
{
	struct pf_ctx *c = arg;
	uint64_t ns = 0;

	while (iters--) {
		void *p = bench_map(c->len);
		if (c->small_pages)
			bench_advise(p, c->len, MADV_NOHUGEPAGE, "madvise(MADV_NOHUGEPAGE)");
		uint64_t t0 = bench_now_ns();
		bench_touch(p, c->len, c->kind);
		ns += bench_now_ns() - t0;
		bench_unmap(p, c->len);
	}
	return ns;
}

/* One metric: touch kind with (small_pages) or without MADV_NOHUGEPAGE. */
static void measure(struct pf_ctx *c, const char *metric, enum bench_touch_kind kind,
		    int small_pages)
{
	double pages = (double)c->len / (double)bench_page_size();

	c->kind = kind;
	c->small_pages = small_pages;
	bench_time_body("lat_pagefault", metric, pf_body, c, pages);
}

/* Measure first-touch cost for writes and reads, 4 KiB and default pages. */
int main(int argc, char **argv)
{
	struct pf_ctx c;

	bench_init(&argc, argv, "lat_pagefault");
	c.len = (argc > 1 ? strtoul(argv[1], NULL, 10) : DEFAULT_REGION_MIB) * BENCH_MIB;
	if (bench_quick())
		c.len = (size_t)bench_page_size();
	if (c.len == 0)
		c.len = BENCH_MIB;
	if (!bench_advice_works(MADV_NOHUGEPAGE)) {
		bench_skip("lat_pagefault", "write", "madvise(MADV_NOHUGEPAGE) not supported");
		bench_skip("lat_pagefault", "read", "madvise(MADV_NOHUGEPAGE) not supported");
	} else {
		measure(&c, "write", BENCH_TOUCH_WRITE, 1);
		measure(&c, "read", BENCH_TOUCH_READ, 1);
	}
	measure(&c, "write_thp", BENCH_TOUCH_WRITE, 0);
	measure(&c, "read_thp", BENCH_TOUCH_READ, 0);
	return bench_finish();
}
