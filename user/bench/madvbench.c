/*
 * user/bench/madvbench.c -- freeing and reusing a 1 MiB chunk, per cycle
 * (write the chunk with memset, as a program reusing a freed block does,
 * then give the memory back):
 *   cycle_keep       memset only: the floor, nothing is given back
 *   cycle_free       write, madvise(MADV_FREE)  (lazy: pages stay until reclaim)
 *   cycle_dontneed   write, madvise(MADV_DONTNEED)  (pages dropped at once)
 *   cycle_munmap     mmap, write, munmap
 *   call_free        only the madvise(MADV_FREE) call of cycle_free
 *   call_dontneed    only the madvise(MADV_DONTNEED) call of cycle_dontneed
 *   rewrite_free     only the memset of cycle_free: what a correct MADV_FREE
 *                    leaves to the rewrite (every page clean and out of the
 *                    TLB, so each first store misses the TLB and sets D)
 *   call_normal      madvise(MADV_NORMAL) of the chunk after each write: the
 *                    system call and range checks with no page work
 *   touch_keep       one store per page instead of the memset, nothing given
 *                    back: the TLB-bound extreme, where the per-page cost of
 *                    MADV_FREE (and of its flush) is all there is
 *   touch_free       one store per page, then madvise(MADV_FREE)
 * Usage: madvbench [--quick] [--runs N] [--ms N] [KIB]   (chunk, default 1024)
 */
#include "bench_mem.h"
#include "bench_util.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_CHUNK_KIB 1024

/* How a cycle gives the chunk back. */
enum give_back { KEEP, FREE, DONTNEED, UNMAP, NORMAL };

/* What a measurement times. */
enum timed { WHOLE, CALL_ONLY, WRITE_ONLY };

/* How a cycle writes the chunk. */
enum write_kind { FILL, TOUCH };

struct madv_ctx {
	size_t len;
	void *chunk;          /* the reused chunk (not for UNMAP) */
	enum give_back how;
	enum timed timed;
	enum write_kind write;
};

/* Write the chunk at p as c->write says (a different byte each cycle). */
static void write_chunk(const struct madv_ctx *c, void *p, uint64_t cycle)
{
	if (c->write == FILL)
		memset(p, (int)(cycle & 0xff), c->len);
	else
		bench_touch(p, c->len, BENCH_TOUCH_WRITE);
}

/* Give the chunk back as c->how says; returns the ns the madvise took. */
static uint64_t give_back(struct madv_ctx *c, void *p)
{
	uint64_t t0 = bench_now_ns();

	if (c->how == FREE)
		bench_advise(p, c->len, MADV_FREE, "madvise(MADV_FREE)");
	else if (c->how == NORMAL)
		bench_advise(p, c->len, MADV_NORMAL, "madvise(MADV_NORMAL)");
	else if (c->how == DONTNEED)
		bench_advise(p, c->len, MADV_DONTNEED, "madvise(MADV_DONTNEED)");
	else if (c->how == UNMAP)
		bench_unmap(p, c->len);
	return bench_now_ns() - t0;
}

/* Run `iters` cycles; returns the ns of whole cycles, of the calls or of
 * the writes only, as c->timed says. */
static uint64_t madv_body(void *arg, uint64_t iters)
{
	struct madv_ctx *c = arg;
	uint64_t t0 = bench_now_ns(), call_ns = 0, write_ns = 0;

	while (iters--) {
		void *p = c->how == UNMAP ? bench_map(c->len) : c->chunk;
		uint64_t w0 = bench_now_ns();

		write_chunk(c, p, iters);
		write_ns += bench_now_ns() - w0;
		call_ns += give_back(c, p);
	}
	if (c->timed == CALL_ONLY)
		return call_ns;
	return c->timed == WRITE_ONLY ? write_ns : bench_now_ns() - t0;
}

/* Measure one cycle kind under `metric` (skipped when the kernel rejects
 * the advice). */
static void measure(struct madv_ctx *c, const char *metric, enum give_back how, enum timed timed,
		    enum write_kind write)
{
	if ((how == FREE && !bench_advice_works(MADV_FREE)) ||
	    (how == DONTNEED && !bench_advice_works(MADV_DONTNEED))) {
		bench_skip("madvbench", metric, "madvise advice rejected with EINVAL");
		return;
	}
	c->how = how;
	c->timed = timed;
	c->write = write;
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
	measure(&c, "cycle_keep", KEEP, WHOLE, FILL);
	measure(&c, "cycle_free", FREE, WHOLE, FILL);
	measure(&c, "cycle_dontneed", DONTNEED, WHOLE, FILL);
	measure(&c, "cycle_munmap", UNMAP, WHOLE, FILL);
	measure(&c, "call_free", FREE, CALL_ONLY, FILL);
	measure(&c, "call_dontneed", DONTNEED, CALL_ONLY, FILL);
	measure(&c, "rewrite_free", FREE, WRITE_ONLY, FILL);
	measure(&c, "call_normal", NORMAL, CALL_ONLY, FILL);
	measure(&c, "touch_keep", KEEP, WHOLE, TOUCH);
	measure(&c, "touch_free", FREE, WHOLE, TOUCH);
	bench_unmap(c.chunk, c.len);
	return bench_finish();
}
