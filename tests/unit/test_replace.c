/* tests/unit/test_replace.c -- the replacement benchmark's traces
 * (user/bench/bench_trace.c) and the policies simulated over them
 * (tools/bench/policies.c): Belady's textbook string, OPT against an
 * exhaustive search of every eviction choice, LRU against a naive one, the
 * laws every policy obeys, and the traces' shapes. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "user/bench/bench_trace.h"
#include "tools/bench/policies.h"

static uint64_t misses(enum policy p, const uint64_t *refs, uint64_t n, uint64_t pages,
		       uint64_t frames)
{
	uint64_t m = policy_misses(p, refs, n, pages, frames);
	ck_assert_uint_ne(m, UINT64_MAX);
	return m;
}

/* 1 2 3 4 1 2 5 1 2 3 4 5: OPT 7, LRU 10, FIFO 9 with 3 frames; with 4,
 * FIFO misses more (10: Belady's anomaly), LRU 8, OPT 6. */
START_TEST(test_belady_string)
{
	static const uint64_t r[] = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 };
	ck_assert_uint_eq(misses(POLICY_OPT, r, 12, 6, 3), 7);
	ck_assert_uint_eq(misses(POLICY_LRU, r, 12, 6, 3), 10);
	ck_assert_uint_eq(misses(POLICY_FIFO, r, 12, 6, 3), 9);
	ck_assert_uint_eq(misses(POLICY_FIFO, r, 12, 6, 4), 10);
	ck_assert_uint_eq(misses(POLICY_LRU, r, 12, 6, 4), 8);
	ck_assert_uint_eq(misses(POLICY_OPT, r, 12, 6, 4), 6);
}
END_TEST

/* The fewest misses of refs[i..n) with resident set `in` (a bit mask),
 * trying every eviction: what OPT must find. */
static unsigned best(const uint64_t *refs, unsigned i, unsigned n, unsigned in, unsigned frames)
{
	if (i == n)
		return 0;
	unsigned x = 1u << refs[i];
	if (in & x)
		return best(refs, i + 1, n, in, frames);
	if ((unsigned)__builtin_popcount(in) < frames)
		return 1 + best(refs, i + 1, n, in | x, frames);
	unsigned least = ~0u;
	for (unsigned v = in; v; v &= v - 1) {
		unsigned m = best(refs, i + 1, n, (in & ~(v & -v)) | x, frames);
		least = m < least ? m : least;
	}
	return 1 + least;
}

/* The misses of LRU found the slow way: each frame's last use. */
static uint64_t naive_lru(const uint64_t *refs, uint64_t n, uint64_t frames)
{
	uint64_t page[16], last[16], used = 0, miss = 0;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t k = 0;
		while (k < used && page[k] != refs[i])
			k++;
		if (k == used) {
			miss++;
			if (used < frames) {
				used++;
			} else {
				k = 0;
				for (uint64_t j = 1; j < used; j++)
					k = last[j] < last[k] ? j : k;
			}
			page[k] = refs[i];
		}
		last[k] = i;
	}
	return miss;
}

/* Random short traces over 6 pages: OPT equals the exhaustive search, LRU
 * the naive LRU; no policy misses less than OPT or more than one miss a
 * reference; with one frame every change of page misses; with a frame
 * per page only first touches miss. */
START_TEST(test_random_small_traces)
{
	struct bench_rng rng;
	bench_rng_seed(&rng, 39);
	for (int round = 0; round < 300; round++) {
		uint64_t r[12], n = 6 + bench_rng_below(&rng, 7), frames = 1 + bench_rng_below(&rng, 4);
		unsigned seen = 0, changes = 0;
		for (uint64_t i = 0; i < n; i++) {
			r[i] = bench_rng_below(&rng, 6);
			changes += i == 0 || r[i] != r[i - 1];
			seen |= 1u << r[i];
		}
		uint64_t o = misses(POLICY_OPT, r, n, 6, frames);
		ck_assert_uint_eq(o, best(r, 0, (unsigned)n, 0, (unsigned)frames));
		ck_assert_uint_eq(misses(POLICY_LRU, r, n, 6, frames), naive_lru(r, n, frames));
		for (int p = 0; p < POLICIES; p++) {
			uint64_t m = misses((enum policy)p, r, n, 6, frames);
			ck_assert(m >= o && m <= n);
			ck_assert_uint_eq(misses((enum policy)p, r, n, 6, 1), changes);
			ck_assert_uint_eq(misses((enum policy)p, r, n, 6, 6), (unsigned)__builtin_popcount(seen));
		}
	}
}
END_TEST

/* Every trace: pages in range, the same sequence from the same seed; loop
 * is 0..P-1 in turn (with one frame too few LRU and FIFO miss every
 * reference, OPT and CLOCK-Pro about one a turn; with half the frames
 * CLOCK-Pro is within 1 % of OPT, its two-list outline within 5 %); scan's
 * scans pass CLOCK-Pro's hot set by (and the outline's); zipf's first rank is its most frequent page;
 * hotcold sends about 90 % of references to a tenth of the pages. */
START_TEST(test_trace_shapes)
{
	enum { P = 1000, N = 20000 };
	static uint64_t a[N], b[N], count[P];
	for (int k = 0; k < TRACE_KINDS; k++) {
		struct trace t, u;
		ck_assert_int_eq(trace_kind_of(trace_name((enum trace_kind)k)), k);
		ck_assert_int_eq(trace_init(&t, (enum trace_kind)k, P, 7), 0);
		ck_assert_int_eq(trace_init(&u, (enum trace_kind)k, P, 7), 0);
		for (int i = 0; i < N; i++) {
			a[i] = trace_next(&t), b[i] = trace_next(&u);
			ck_assert_uint_lt(a[i], P);
			ck_assert_uint_eq(a[i], b[i]);
		}
		trace_free(&t);
		trace_free(&u);
		uint64_t o = misses(POLICY_OPT, a, N, P, P / 2);
		for (int p = 1; p < POLICIES; p++)
			ck_assert_uint_ge(misses((enum policy)p, a, N, P, P / 2), o);
		if (k == TRACE_LOOP) {
			ck_assert_uint_eq(a[1234], 234);
			ck_assert_uint_eq(misses(POLICY_LRU, a, N, P, P - 1), N);
			ck_assert_uint_eq(misses(POLICY_FIFO, a, N, P, P - 1), N);
			ck_assert_uint_lt(misses(POLICY_OPT, a, N, P, P - 1), N / 10);
			/* CLOCK-Pro keeps a hot set through the loop, as OPT does */
			ck_assert_uint_lt(misses(POLICY_CLOCKPRO, a, N, P, P - 1), N / 10);
			ck_assert_uint_lt(misses(POLICY_CLOCKPRO, a, N, P, P / 2),
					  misses(POLICY_OPT, a, N, P, P / 2) * 101 / 100);
			/* and so does the kernel's outline of it, within 5 % */
			ck_assert_uint_lt(misses(POLICY_TWOLIST, a, N, P, P - 1), N / 10);
			ck_assert_uint_lt(misses(POLICY_TWOLIST, a, N, P, P / 2),
					  misses(POLICY_OPT, a, N, P, P / 2) * 105 / 100);
		}
		if (k == TRACE_SCAN)   /* and the hot eighth through the scans */
			for (int p = POLICY_CLOCKPRO; p <= POLICY_TWOLIST; p++)
				ck_assert_uint_lt(misses((enum policy)p, a, N, P, P / 2),
						  misses(POLICY_LRU, a, N, P, P / 2) * 9 / 10);
		memset(count, 0, sizeof(count));
		for (int i = 0; i < N; i++)
			count[a[i]]++;
		if (k == TRACE_ZIPF)
			for (int q = 1; q < P; q++)
				ck_assert_uint_ge(count[0], count[q]);
		if (k == TRACE_HOTCOLD) {
			uint64_t hot = 0;
			for (int q = 0; q < P / 10; q++)
				hot += count[(q * 2654435761ull) % P];
			ck_assert(hot > N * 85 / 100 && hot < N * 95 / 100);
		}
	}
	ck_assert_int_eq(trace_kind_of("nonsense"), -1);
	ck_assert_ptr_null(trace_name(TRACE_KINDS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("replace");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_belady_string);
	tcase_add_test(tc, test_random_small_traces);
	tcase_add_test(tc, test_trace_shapes);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
