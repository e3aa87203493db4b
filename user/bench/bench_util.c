/*
 * user/bench/bench_util.c -- calibrated timing loops, statistics and the
 * BENCH output format (see bench_util.h).
 */
#include "bench_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_RUNS 5
#define DEFAULT_TARGET_MS 100
#define MAX_ROWS 128
#define NS_PER_US 1000.0
#define NS_PER_MS 1000000ull

static const char *prog_name = "bench";
static int quick;
static int nruns = DEFAULT_RUNS;
static int target_ms = DEFAULT_TARGET_MS;

/* One reported result, kept for the readable table. */
struct row {
	char bench[32], metric[32], unit[16];
	struct bench_stat st;
	int skipped;
};
static struct row rows[MAX_ROWS];
static int nrows;

/* Parse an option value in [1, max] or exit with a message. */
static int parse_count(const char *opt, const char *val, long max)
{
	char *end;
	long v = val ? strtol(val, &end, 10) : 0;

	if (!val || *end || v < 1 || v > max) {
		fprintf(stderr, "%s: %s needs a number from 1 to %ld\n", prog_name, opt, max);
		exit(2);
	}
	return (int)v;
}

void bench_init(int *argc, char **argv, const char *prog)
{
	const char *env = getenv("BENCH_QUICK");
	int i, out = 1;

	prog_name = prog;
	quick = env && strcmp(env, "0") != 0 && *env;
	for (i = 1; i < *argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--runs"))
			nruns = parse_count("--runs", i + 1 < *argc ? argv[++i] : NULL, BENCH_MAX_RUNS);
		else if (!strcmp(argv[i], "--ms"))
			target_ms = parse_count("--ms", i + 1 < *argc ? argv[++i] : NULL, 3600000);
		else
			argv[out++] = argv[i];
	}
	argv[out] = NULL;
	*argc = out;
	if (quick)
		nruns = 1;
}

int bench_quick(void)
{
	return quick;
}

int bench_runs(void)
{
	return nruns;
}

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		bench_die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void bench_cpu_now(struct bench_cpu *out)
{
	struct tms t;
	long hz = sysconf(_SC_CLK_TCK);

	if (times(&t) == (clock_t)-1)
		bench_die("times");
	if (hz <= 0)
		hz = 100;
	out->user_s = (double)(t.tms_utime + t.tms_cutime) / (double)hz;
	out->sys_s = (double)(t.tms_stime + t.tms_cstime) / (double)hz;
	out->wall_s = (double)bench_now_ns() / 1e9;
}

long bench_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

void bench_die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog_name, what, strerror(errno));
	exit(2);
}

/* Pick the iteration count for one run of about target_ms: grow the count
 * until a run takes a quarter of the target, then scale it up. These runs
 * double as warm-up. */
static uint64_t calibrate(bench_body_fn body, void *ctx)
{
	uint64_t target = (uint64_t)target_ms * NS_PER_MS;
	uint64_t iters = 1, ns;

	if (quick)
		return 1;
	for (;;) {
		ns = body(ctx, iters);
		if (ns >= target / 4 || iters >= (1ull << 40))
			break;
		iters *= ns < target / 64 ? 8 : 2;
	}
	if (ns == 0)
		return iters;
	iters = (uint64_t)((double)iters * (double)target / (double)ns);
	return iters ? iters : 1;
}

struct bench_stat bench_time_body(const char *bench, const char *metric,
				  bench_body_fn body, void *ctx, double ops_per_iter)
{
	double samples[BENCH_MAX_RUNS];
	uint64_t iters = calibrate(body, ctx);
	int r, n = nruns;

	for (r = 0; r < n; r++) {
		uint64_t ns = body(ctx, iters);
		samples[r] = (double)ns / NS_PER_US / ((double)iters * ops_per_iter);
	}
	return bench_report(bench, metric, "us", samples, n);
}

/* The op and its context, passed through bench_time_body's void pointer. */
struct op_call {
	bench_op_fn op;
	void *ctx;
};

/* Body of bench_time_op: time `iters` calls of the op. */
static uint64_t op_body(void *arg, uint64_t iters)
{
	struct op_call *c = arg;
	uint64_t t0 = bench_now_ns();

	while (iters--)
		c->op(c->ctx);
	return bench_now_ns() - t0;
}

struct bench_stat bench_time_op(const char *bench, const char *metric,
				bench_op_fn op, void *ctx)
{
	struct op_call c = { op, ctx };

	return bench_time_body(bench, metric, op_body, &c, 1.0);
}

/* qsort comparator for doubles. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct bench_stat bench_report(const char *bench, const char *metric,
			       const char *unit, double *samples, int n)
{
	struct bench_stat st;

	qsort(samples, (size_t)n, sizeof samples[0], cmp_double);
	st.min = samples[0];
	st.max = samples[n - 1];
	st.median = n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
	st.runs = n;
	bench_report_stat(bench, metric, unit, st);
	return st;
}

/* Keep a row for bench_finish's table (the first MAX_ROWS only). */
static void add_row(const char *bench, const char *metric, const char *unit,
		    struct bench_stat st, int skipped)
{
	struct row *r;

	if (nrows >= MAX_ROWS)
		return;
	r = &rows[nrows++];
	snprintf(r->bench, sizeof r->bench, "%s", bench);
	snprintf(r->metric, sizeof r->metric, "%s", metric);
	snprintf(r->unit, sizeof r->unit, "%s", unit);
	r->st = st;
	r->skipped = skipped;
}

void bench_report_stat(const char *bench, const char *metric, const char *unit,
		       struct bench_stat st)
{
	printf("BENCH %s %s %s median=%.6g min=%.6g max=%.6g runs=%d\n",
	       bench, metric, unit, st.median, st.min, st.max, st.runs);
	fflush(stdout);
	add_row(bench, metric, unit, st, 0);
}

void bench_skip(const char *bench, const char *metric, const char *why)
{
	struct bench_stat none = { 0, 0, 0, 0 };

	printf("BENCHSKIP %s %s %s\n", bench, metric, why);
	fflush(stdout);
	add_row(bench, metric, "-", none, 1);
}

int bench_finish(void)
{
	int i;

	printf("\n%-12s %-18s %-10s %12s %12s %12s %5s\n",
	       "bench", "metric", "unit", "median", "min", "max", "runs");
	for (i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		if (r->skipped)
			printf("%-12s %-18s %-10s %12s\n", r->bench, r->metric, r->unit, "skipped");
		else
			printf("%-12s %-18s %-10s %12.4g %12.4g %12.4g %5d\n", r->bench, r->metric,
			       r->unit, r->st.median, r->st.min, r->st.max, r->st.runs);
	}
	fflush(stdout);
	return 0;
}
