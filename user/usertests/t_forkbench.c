/* user/usertests/t_forkbench.c -- the in-kernel fork benchmark's system
 * call (pagoda_forkbench, pagoda/forkbench.h): bad requests and pointers
 * give Linux errnos, a request no memory can hold gives ENOMEM, and a small
 * run returns sane results (every cell measured, runs counted, min <= median
 * <= max, nonzero) without leaking a frame. It asserts no speed. On Linux
 * the call is ENOSYS and the tests pass vacuously. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <pagoda/pagoda.h>
#include "usertests.h"

static struct pagoda_forkbench_result res;

/* A request for sizes (MiB, n of them) with runs runs, all strategies. */
static struct pagoda_forkbench_req req_of(const uint32_t *sizes, uint32_t n, uint32_t runs)
{
	struct pagoda_forkbench_req r = { .nsizes = n, .runs = runs };
	memcpy(r.size_mib, sizes, n * sizeof(*sizes));
	return r;
}

/* Is the call there (Pagoda), judged by an empty request? */
static int have_forkbench(void)
{
	struct pagoda_forkbench_req r = { 0 };
	return !(pagoda_forkbench(&r, &res) < 0 && errno == ENOSYS);
}

void test_forkbench_errors(void)
{
	const uint32_t one[] = { 1 };
	struct pagoda_forkbench_req r;
	if (!have_forkbench())
		return;
	r = req_of(one, 0, 1);
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);          /* no sizes */
	r = req_of(one, 1, 1);
	r.nsizes = PAGODA_FB_MAX_SIZES + 1;
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);          /* too many */
	r = req_of(one, 1, 1);
	r.size_mib[0] = 0;
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);
	r.size_mib[0] = PAGODA_FB_MAX_MIB + 1;
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);
	r = req_of(one, 1, PAGODA_FB_MAX_RUNS + 1);
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);
	r = req_of(one, 1, 1);
	r.strategies = 1u << PAGODA_FB_NSTRATEGIES;
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);
	r = req_of(one, 1, 1);
	r.reserved = 1;
	CHECK_ERR(pagoda_forkbench(&r, &res), EINVAL);
	r = req_of(one, 1, 1);
	CHECK_ERR(pagoda_forkbench(NULL, &res), EFAULT);
	CHECK_ERR(pagoda_forkbench(&r, NULL), EFAULT);
	CHECK_ERR(pagoda_forkbench((void *)1, &res), EFAULT);
	void *ro = mmap(NULL, sizeof(res), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(ro != MAP_FAILED);
	CHECK_ERR(pagoda_forkbench(&r, ro), EFAULT);           /* results not writable */
	const uint32_t huge[] = { PAGODA_FB_MAX_MIB };
	r = req_of(huge, 1, 1);
	CHECK_ERR(pagoda_forkbench(&r, &res), ENOMEM);          /* 64 GiB: no memory */
}

/* One stat is sane: nonzero, min <= median <= max. */
static void check_stat(const struct pagoda_forkbench_stat *s)
{
	CHECK(s->min > 0);
	CHECK(s->min <= s->median && s->median <= s->max);
}

void test_forkbench_run(void)
{
	const uint32_t sizes[] = { 1, 2 };
	struct pagoda_forkbench_req r = req_of(sizes, 2, 3);
	struct pagoda_meminfo m0, m1;
	if (!have_forkbench())
		return;
	memset(&res, 0xff, sizeof(res));
	CHECK_OK(pagoda_meminfo(&m0));
	CHECK_OK(pagoda_forkbench(&r, &res));
	CHECK_OK(pagoda_meminfo(&m1));
	/* No frame leaked. Not "==": a kernel cache may give a frame back
	 * meanwhile (2 of 12 runs of user-musl, 2026-12-02: one page more after, with every
	 * per-test count and the final leakcheck equal). */
	if (m1.free_pages < m0.free_pages)
		ut_fail(__FILE__, __LINE__, "free pages %llu before pagoda_forkbench, %llu after: leaked "
			"(kernel %llu/%llu, anon %llu/%llu, file %llu/%llu, page tables %llu/%llu)",
			(unsigned long long)m0.free_pages, (unsigned long long)m1.free_pages,
			(unsigned long long)m0.kernel_pages, (unsigned long long)m1.kernel_pages,
			(unsigned long long)m0.anon_pages, (unsigned long long)m1.anon_pages,
			(unsigned long long)m0.file_pages, (unsigned long long)m1.file_pages,
			(unsigned long long)m0.pagetable_pages, (unsigned long long)m1.pagetable_pages);
	CHECK(res.nsizes == 2 && res.size_mib[0] == 1 && res.size_mib[1] == 2);
	CHECK(res.tsc_khz > 0);
	for (int i = 0; i < 2; i++)
		for (int s = 0; s < PAGODA_FB_NSTRATEGIES; s++) {
			const struct pagoda_forkbench_cell *c = &res.cell[i][s];
			if (c->status != PAGODA_FB_OK)
				ut_fail(__FILE__, __LINE__, "%u MiB, strategy %d: status %u (%s)",
					res.size_mib[i], s, (unsigned)c->status, c->note);
			CHECK(c->runs == 3);
			check_stat(&c->fork_ns);
			check_stat(&c->exit_ns);
			check_stat(&c->total_ns);
			check_stat(&c->total_cycles);
			CHECK(c->total_ns.max >= c->fork_ns.min + c->exit_ns.min);
		}
	/* one strategy asked: the others are left alone */
	r = req_of(sizes, 1, 1);
	r.strategies = 1u << PAGODA_FB_SHARE;
	CHECK_OK(pagoda_forkbench(&r, &res));
	CHECK(res.cell[0][PAGODA_FB_SHARE].status == PAGODA_FB_OK);
	CHECK(res.cell[0][PAGODA_FB_SHARE].runs == 1);
	CHECK(res.cell[0][PAGODA_FB_COPY].status == PAGODA_FB_UNASKED);
	CHECK(res.cell[0][PAGODA_FB_COW].status == PAGODA_FB_UNASKED);
}
