/*
 * user/bench/bench_util.h -- the one timing and reporting library of the
 * benchmark suite. Portable POSIX C: builds against musl (Linux, static) and
 * against newlib (Pagoda).
 *
 * Every result is printed as ONE machine-readable line, the fixed format that
 * tools/bench/bench.py parses:
 *
 *   BENCH <bench> <metric> <unit> median=<x> min=<y> max=<z> runs=<n>
 *
 * (<bench>, <metric> and <unit> contain no spaces), or, for a metric this
 * system cannot measure, "BENCHSKIP <bench> <metric> <reason>"; bench_finish()
 * adds a readable table of the same results. Common options, removed from argv by
 * bench_init(): --quick (or BENCH_QUICK=1 in the environment: one tiny
 * iteration, one run -- checks that the program works, measures nothing),
 * --runs N (default 5), --ms N (target length of one run, default 100 ms).
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdint.h>

#define BENCH_MAX_RUNS 1000 /* the largest --runs */

/* Median, minimum and maximum of `runs` samples, in the metric's unit. */
struct bench_stat {
	double median, min, max;
	int runs;
};

/* CPU and wall time consumed so far (see bench_cpu_now). */
struct bench_cpu {
	double user_s, sys_s, wall_s;
};

/* One operation of a benchmark (e.g. one fork+exit+wait). */
typedef void (*bench_op_fn)(void *ctx);

/* A timed body: run `iters` operations and return the nanoseconds spent in
 * the part being measured (usually all of it; see bench_time_op). */
typedef uint64_t (*bench_body_fn)(void *ctx, uint64_t iters);

/* Parse and remove the common options from argv; `prog` names the program in
 * messages. Exits with status 2 on a bad option value. */
void bench_init(int *argc, char **argv, const char *prog);

/* Nonzero in --quick mode: programs shrink their sizes to the minimum. */
int bench_quick(void);

/* Number of runs per metric, at most BENCH_MAX_RUNS (1 in quick mode). */
int bench_runs(void);

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). */
uint64_t bench_now_ns(void);

/* User and system CPU time of this process and its waited-for children
 * (times()), and monotonic wall time, all in seconds. */
void bench_cpu_now(struct bench_cpu *out);

/* Size of a page in bytes (sysconf, 4096 if unknown). */
long bench_page_size(void);

/* Print "prog: what: strerror(errno)" to stderr and exit with status 2. */
void bench_die(const char *what);

/* Measure body: pick an iteration count so one run lasts about the target
 * time (1 iteration in quick mode), do bench_runs() runs and report the time
 * per operation in microseconds, where one iteration is `ops_per_iter`
 * operations (e.g. pages touched). Returns the reported statistics. */
struct bench_stat bench_time_body(const char *bench, const char *metric,
				  bench_body_fn body, void *ctx, double ops_per_iter);

/* bench_time_body for the common case: the whole of op() is timed. */
struct bench_stat bench_time_op(const char *bench, const char *metric,
				bench_op_fn op, void *ctx);

/* Report n samples (n >= 1; sorted in place): prints the BENCH line and
 * records the row for bench_finish's table. */
struct bench_stat bench_report(const char *bench, const char *metric,
			       const char *unit, double *samples, int n);

/* Report an already computed statistic (e.g. one derived from two others). */
void bench_report_stat(const char *bench, const char *metric, const char *unit,
		       struct bench_stat st);

/* Report that `metric` cannot be measured on this system (e.g. the kernel
 * rejects a madvise advice): prints "BENCHSKIP <bench> <metric> <why>" and
 * records the row for the table. The program goes on with other metrics. */
void bench_skip(const char *bench, const char *metric, const char *why);

/* Print the readable table of everything reported; returns 0, the exit
 * status for main. Call once at the end of main (never in a forked child). */
int bench_finish(void);

#endif
