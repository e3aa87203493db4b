/*
 * user/bench/lat_pagefault.c -- cost of the first touch of anonymous pages:
 * map a region, touch one byte per page, unmap; only the touching is timed.
 *   write   first store to each page (allocate and map a private page)
 *   read    first load of each page (may map the shared zero page)
 * Reported per page. Usage: lat_pagefault [--quick] [--runs N] [--ms N] [MIB]
 * MIB is the region size (default 4; 1 page in quick mode).
 */
#include "bench_mem.h"
#include "bench_util.h"

#include <stdlib.h>

#define DEFAULT_REGION_MIB 4

/* The region size and how it is touched. */
struct pf_ctx {
	size_t len;
	enum bench_touch_kind kind;
};

/* Map, touch (timed) and unmap the region `iters` times. */
static uint64_t pf_body(void *arg, uint64_t iters)
{
	struct pf_ctx *c = arg;
	uint64_t ns = 0;

	while (iters--) {
		void *p = bench_map(c->len);
		uint64_t t0 = bench_now_ns();
		bench_touch(p, c->len, c->kind);
		ns += bench_now_ns() - t0;
		bench_unmap(p, c->len);
	}
	return ns;
}

/* Measure first-touch cost for writes and reads. */
int main(int argc, char **argv)
{
	struct pf_ctx c;
	double pages;

	bench_init(&argc, argv, "lat_pagefault");
	c.len = (argc > 1 ? strtoul(argv[1], NULL, 10) : DEFAULT_REGION_MIB) * BENCH_MIB;
	if (bench_quick())
		c.len = (size_t)bench_page_size();
	if (c.len == 0)
		c.len = BENCH_MIB;
	pages = (double)c.len / (double)bench_page_size();
	c.kind = BENCH_TOUCH_WRITE;
	bench_time_body("lat_pagefault", "write", pf_body, &c, pages);
	c.kind = BENCH_TOUCH_READ;
	bench_time_body("lat_pagefault", "read", pf_body, &c, pages);
	return bench_finish();
}
