/* tests/unit/test_bench.c -- the benchmark library (user/bench/): the seeded
 * generator, the statistics, the BENCH line format and the calibrated loop. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "user/bench/bench_rng.h"
#include "user/bench/bench_util.h"

/* Run fn with stdout sent to a temporary file; return what it printed. */
static const char *capture_stdout(void (*fn)(void))
{
	static char out[4096];
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	fn();
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof out - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
	return out;
}

START_TEST(test_rng_reference_and_repeatable)
{
	struct bench_rng a, b;

	bench_rng_seed(&a, 0);
	/* SplitMix64's published first output for seed 0. */
	ck_assert_uint_eq(bench_rng_next(&a), 0xe220a8397b1dcdafull);
	bench_rng_seed(&a, 42);
	bench_rng_seed(&b, 42);
	for (int i = 0; i < 1000; i++)
		ck_assert_uint_eq(bench_rng_next(&a), bench_rng_next(&b));
}
END_TEST

START_TEST(test_rng_below_is_in_range_and_uniform)
{
	struct bench_rng r;
	int count[6] = { 0 };

	bench_rng_seed(&r, 7);
	for (int i = 0; i < 100; i++)
		ck_assert_uint_eq(bench_rng_below(&r, 1), 0);
	for (int i = 0; i < 60000; i++) {
		uint64_t v = bench_rng_below(&r, 6);
		ck_assert_uint_lt(v, 6);
		count[v]++;
	}
	for (int k = 0; k < 6; k++) /* 10000 expected; 5 sigma is about 460 */
		ck_assert_msg(count[k] > 9500 && count[k] < 10500, "value %d drawn %d times", k, count[k]);
	ck_assert_uint_lt(bench_rng_below(&r, UINT64_MAX), UINT64_MAX);
}
END_TEST

/* Report an odd and an even number of unsorted samples. */
static void report_two(void)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 };
	struct bench_stat s = bench_report("b", "odd", "us", odd, 3);

	ck_assert(s.median == 2 && s.min == 1 && s.max == 3 && s.runs == 3);
	s = bench_report("b", "even", "records/s", even, 4);
	ck_assert(s.median == 2.5 && s.min == 1 && s.max == 4 && s.runs == 4);
}

START_TEST(test_report_statistics_and_line_format)
{
	ck_assert_str_eq(capture_stdout(report_two),
			 "BENCH b odd us median=2 min=1 max=3 runs=3\n"
			 "BENCH b even records/s median=2.5 min=1 max=4 runs=4\n");
}
END_TEST

/* A fake body: every operation "takes" exactly 2500 ns. */
static uint64_t fake_body(void *ctx, uint64_t iters)
{
	*(uint64_t *)ctx += iters;
	return iters * 2500;
}

static uint64_t fake_iters;

/* Time fake_body with 4 operations per iteration. */
static void time_fake(void)
{
	struct bench_stat s = bench_time_body("b", "fake", fake_body, &fake_iters, 4.0);

	ck_assert(s.median > 0.6249 && s.median < 0.6251); /* 2.5 us / 4 ops */
	ck_assert_int_eq(s.runs, 5);
}

START_TEST(test_calibrated_loop_divides_by_iterations)
{
	char *argv[] = { "prog", "--runs", "5", "--ms", "10", "rest", NULL };
	int argc = 6;

	bench_init(&argc, argv, "prog");
	ck_assert_int_eq(argc, 2);
	ck_assert_str_eq(argv[1], "rest");
	ck_assert_ptr_null(argv[2]);
	ck_assert_str_eq(capture_stdout(time_fake),
			 "BENCH b fake us median=0.625 min=0.625 max=0.625 runs=5\n");
	/* 10 ms of 2.5 us iterations is 4000 per run: calibration reached it. */
	ck_assert_uint_ge(fake_iters, 5 * 4000);
}
END_TEST

static Suite *bench_suite(void)
{
	Suite *s = suite_create("bench");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_rng_reference_and_repeatable);
	tcase_add_test(tc, test_rng_below_is_in_range_and_uniform);
	tcase_add_test(tc, test_report_statistics_and_line_format);
	tcase_add_test(tc, test_calibrated_loop_divides_by_iterations);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(bench_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
