/*
 * user/bench/madvbench.c -- freeing and reusing a 1 MiB chunk, per cycle
 * (write every page, then give the memory back):
 *   cycle_keep       write only: the floor, nothing is given back
 *   cycle_free       write, madvise(MADV_FREE)  (lazy: pages stay until reclaim)
 *   cycle_dontneed   write, madvise(MADV_DONTNEED)  (pages dropped at once)
 *   cycle_munmap     mmap, write, munmap
 *   call_free        only the madvise(MADV_FREE) call of cycle_free
 *   call_dontneed    only the madvise(MADV_DONTNEED) call of cycle_dontneed
 * Usage: madvbench [--quick] [--runs N] [--ms N] [KIB]   (chunk, default 1024)
 */
#include "bench_mem.h"
#include "bench_util.h"

#include <stdlib.h>

#define DEFAULT_CHUNK_KIB 1024

/* How a cycle gives the chunk back. */
enum give_back { KEEP, FREE, DONTNEED, UNMAP };

struct madv_ctx {
	size_t len;
	void *chunk;          /* the reused chunk (not for UNMAP) */
	enum give_back how;
	int time_call_only;   /* time only the madvise call */
};

/* Give the chunk back as c->how says; returns the ns the madvise took. */
static uint64_t give_back(struct madv_ctx *c, void *p)
{
	uint64_t t0 = bench_now_ns();

	if (c->how == FREE)
		bench_advise(p, c->len, MADV_FREE, "madvise(MADV_FREE)");
	else if (c->how == DONTNEED)
		bench_advise(p, c->len, MADV_DONTNEED, "madvise(MADV_DONTNEED)");
	else if (c->how == UNMAP)
		bench_unmap(p, c->len);
	return bench_now_ns() - t0;
}

/* Run `iters` cycles; returns the ns of whole cycles or of the calls only. */
static uint64_t madv_body(void *arg, uint64_t iters)
{
	struct madv_ctx *c = arg;
	uint64_t t0 = bench_now_ns(), call_ns = 0;

	while (iters--) {
		void *p = c->how == UNMAP ? bench_map(c->len) : c->chunk;
		bench_touch(p, c->len, BENCH_TOUCH_WRITE);
		call_ns += give_back(c, p);
	}
	return c->time_call_only ? call_ns : bench_now_ns() - t0;
}

/* Measure one cycle kind under `metric` (skipped when the kernel rejects
 * the advice). */
static void measure(struct madv_ctx *c, const char *metric, enum give_back how, int call_only)
{
	if ((how == FREE && !bench_advice_works(MADV_FREE)) ||
	    (how == DONTNEED && !bench_advice_works(MADV_DONTNEED))) {
		bench_skip("madvbench", metric, "madvise advice rejected with EINVAL");
		return;
	}
	c->how = how;
	c->time_call_only = call_only;
	bench_time_body("madvbench", metric, madv_body, c, 1.0);
}

/* Measure every cycle kind on one chunk. */
int main(int argc, char **argv)
{
	struct madv_ctx c;

	bench_init(&argc, argv, "madvbench");
	c.len = (argc > 1 ? strtoul(argv[1], NULL, 10) : DEFAULT_CHUNK_KIB) * 1024;
	if (c.len == 0)
		c.len = (size_t)bench_page_size();
	c.chunk = bench_map(c.len);
	measure(&c, "cycle_keep", KEEP, 0);
	measure(&c, "cycle_free", FREE, 0);
	measure(&c, "cycle_dontneed", DONTNEED, 0);
	measure(&c, "cycle_munmap", UNMAP, 0);
	measure(&c, "call_free", FREE, 1);
	measure(&c, "call_dontneed", DONTNEED, 1);
	bench_unmap(c.chunk, c.len);
	return bench_finish();
}
