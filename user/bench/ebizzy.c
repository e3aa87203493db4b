/*
 * user/bench/ebizzy.c -- a clean-room ebizzy: threads of a web-server like
 * loop that allocate, copy, search and free memory.
 *
 * Setup: CHUNKS chunks of SIZE bytes each (10 of 512 KiB, as the original
 * ebizzy), filled with sorted random 64-bit records. Then THREADS threads (2
 * per online CPU by default, as the original) each repeat one iteration:
 * pick a random chunk, get a buffer of the same size (how depends on the
 * mode), copy the chunk into it, look up SEARCHES random records of the
 * chunk in the copy by binary search (every one must be found), give the
 * buffer back. Modes:
 *   malloc     malloc + free for every buffer (the libc decides)
 *   mmap       mmap + munmap for every buffer (seed 002's "vanilla")
 *   free       one buffer per thread, madvise(MADV_FREE) after each use
 *   dontneed   one buffer per thread, madvise(MADV_DONTNEED) after each use
 * A run is either a fixed amount of work (-i: ITERATIONS in all, shared out
 * among the threads; the default, so that user, system and wall seconds
 * compare across kernels) or, with -S, SECONDS of wall time as the original
 * ebizzy does. records/s = records looked up per wall second.
 *
 * User and system seconds are the sums over the process's threads of
 * /proc/self/task/TID/stat (USER_HZ ticks), read while every thread is alive
 * and parked at a barrier and subtracted thread by thread (a thread of the
 * previous run may still be listed, exiting, at the first reading and gone
 * at the second; make test saw a negative sum): the per-thread files are what both kernels report
 * alike (Pagoda's times() counted only the calling thread until it learned to
 * sum the group). Without /proc it falls back to times().
 *
 * Metrics: threads (count), per mode <mode>_rate (records/s), <mode>_user,
 * <mode>_sys, <mode>_wall (s), <mode>_cpu ((user+sys)/wall, %) and
 * <mode>_records (records looked up in a run).
 *
 * Usage: ebizzy [--quick] [--runs N] [-m MODE|all]... [-t THREADS] [-n CHUNKS]
 *               [-s BYTES] [-i ITERATIONS | -S SECONDS] [-k SEARCHES] [-r SEED]
 * (-m may repeat: each names one more mode to run, in the order given.)
 */
#include "bench_mem.h"
#include "bench_rng.h"
#include "bench_util.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum mode { MODE_MALLOC, MODE_MMAP, MODE_FREE, MODE_DONTNEED, NMODES };
static const char *const mode_names[NMODES] = { "malloc", "mmap", "free", "dontneed" };

#define MAX_THREADS 256
#define USER_HZ 100.0   /* the clock ticks of /proc/PID/stat (Linux and Pagoda) */

struct ebizzy {
	unsigned long nchunks, chunk_len, iters, seconds, searches, seed, nthreads;
	size_t nrecords;              /* records per chunk */
	uint64_t **chunks;
	enum mode mode;               /* of the run in progress */
	int stop;                     /* timed run: the time is up (atomic) */
	pthread_barrier_t start, done, leave;
	int modes[NMODES], nmodes;    /* what to run, in order */
};

/* One thread of a run: what it was told and what it did. */
struct worker {
	struct ebizzy *e;
	pthread_t thread;
	unsigned long idx, share;     /* its number, its iterations (fixed work) */
	void *reused;                 /* its one buffer of free/dontneed modes */
	unsigned long done;           /* iterations it did */
};

/* Order for qsort and bsearch of records. */
static int cmp_record(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Add the mode named v to e's list ("all": every mode); -1 if unknown. */
static int add_mode(struct ebizzy *e, const char *v)
{
	int m;

	for (m = 0; m < NMODES && strcmp(v, mode_names[m]); m++)
		;
	if (m < NMODES && e->nmodes < NMODES) {
		e->modes[e->nmodes++] = m;
		return 0;
	}
	if (strcmp(v, "all"))
		return -1;
	for (m = 0; m < NMODES && e->nmodes < NMODES; m++)
		e->modes[e->nmodes++] = m;
	return 0;
}

/* Parse one "-X value" option into e; returns 0, or -1 if it is unknown. */
static int parse_option(struct ebizzy *e, const char *o, const char *v)
{
	unsigned long n = strtoul(v, NULL, 10);

	if (!strcmp(o, "-m")) return add_mode(e, v);
	else if (!strcmp(o, "-t")) e->nthreads = n;
	else if (!strcmp(o, "-n")) e->nchunks = n;
	else if (!strcmp(o, "-s")) e->chunk_len = n;
	else if (!strcmp(o, "-i")) e->iters = n, e->seconds = 0;
	else if (!strcmp(o, "-S")) e->seconds = n, e->iters = 0;
	else if (!strcmp(o, "-k")) e->searches = n;
	else if (!strcmp(o, "-r")) e->seed = n;
	else return -1;
	return 0;
}

/* Parse the options into e; returns 0, or -1 on a bad option or value. */
static int parse_args(struct ebizzy *e, int argc, char **argv)
{
	int i;

	for (i = 1; i + 1 < argc; i += 2)
		if (parse_option(e, argv[i], argv[i + 1]) != 0)
			return -1;
	if (!e->nmodes)
		add_mode(e, "all");
	if (i != argc || !e->nchunks || e->chunk_len < sizeof(uint64_t) || !e->searches)
		return -1;
	return e->nthreads && e->nthreads <= MAX_THREADS && (e->iters || e->seconds) ? 0 : -1;
}

/* Allocate the chunks and fill each with sorted random records. */
static void setup(struct ebizzy *e)
{
	struct bench_rng rng;
	unsigned long c;
	size_t r;

	e->nrecords = e->chunk_len / sizeof(uint64_t);
	e->chunks = malloc(e->nchunks * sizeof e->chunks[0]);
	if (!e->chunks)
		bench_die("malloc chunk table");
	bench_rng_seed(&rng, e->seed);
	for (c = 0; c < e->nchunks; c++) {
		e->chunks[c] = bench_map(e->chunk_len);
		for (r = 0; r < e->nrecords; r++)
			e->chunks[c][r] = bench_rng_next(&rng);
		qsort(e->chunks[c], e->nrecords, sizeof(uint64_t), cmp_record);
	}
}

/* A buffer of chunk_len bytes for worker w, obtained the way the mode says. */
static void *get_buffer(struct worker *w)
{
	void *p;

	switch (w->e->mode) {
	case MODE_MALLOC:
		if (!(p = malloc(w->e->chunk_len)))
			bench_die("malloc");
		return p;
	case MODE_MMAP:
		return bench_map(w->e->chunk_len);
	default:
		return w->reused;
	}
}

/* Give back a get_buffer buffer the way the mode says. */
static void put_buffer(struct worker *w, void *p)
{
	size_t len = w->e->chunk_len;

	switch (w->e->mode) {
	case MODE_MALLOC: free(p); break;
	case MODE_MMAP: bench_unmap(p, len); break;
	case MODE_FREE: bench_advise(p, len, MADV_FREE, "madvise(MADV_FREE)"); break;
	default: bench_advise(p, len, MADV_DONTNEED, "madvise(MADV_DONTNEED)"); break;
	}
}

/* One iteration: copy a random chunk and look up `searches` of its records;
 * exits with status 2 when one is not found (memory corrupted). */
static void iterate(struct worker *w, struct bench_rng *rng)
{
	const struct ebizzy *e = w->e;
	const uint64_t *chunk = e->chunks[bench_rng_below(rng, e->nchunks)];
	uint64_t *copy = get_buffer(w);
	unsigned long s;

	memcpy(copy, chunk, e->chunk_len);
	for (s = 0; s < e->searches; s++) {
		uint64_t key = chunk[bench_rng_below(rng, e->nrecords)];
		const uint64_t *hit = bsearch(&key, copy, e->nrecords, sizeof key, cmp_record);
		if (!hit || *hit != key) {
			fprintf(stderr, "ebizzy: record %llx not found\n", (unsigned long long)key);
			exit(2);
		}
	}
	put_buffer(w, copy);
}

/* Is worker w's part of the run over (its share done, or the time up)? */
static int finished(const struct worker *w)
{
	if (w->e->seconds)
		return __atomic_load_n(&w->e->stop, __ATOMIC_RELAXED);
	return w->done >= w->share;
}

/* A worker thread: wait for the start, iterate until finished, then stay
 * alive until the main thread has read every thread's CPU time. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct bench_rng rng;

	bench_rng_seed(&rng, w->e->seed + 1 + w->idx);
	pthread_barrier_wait(&w->e->start);
	while (!finished(w)) {
		iterate(w, &rng);
		w->done++;
	}
	pthread_barrier_wait(&w->e->done);
	pthread_barrier_wait(&w->e->leave);
	return NULL;
}

/* The user and system ticks of each of the process's threads at one moment,
 * by thread id: a run's CPU time is the difference per thread, so a thread
 * of the previous run that is still listed at the first reading (it has woken
 * pthread_join but not finished exiting, on either kernel) and gone at the
 * second does not make the sum go down. */
struct task_ticks {
	int ok;                       /* /proc/self/task was read */
	unsigned long n;
	struct { long tid; unsigned long long user, sys; } t[MAX_THREADS + 8];
};

/* Add one thread's user and system ticks (fields 14 and 15 of its
 * /proc/self/task/TID/stat) to *tt; -1 if the file cannot be read or tt is full. */
static int add_task_ticks(const char *tid, struct task_ticks *tt)
{
	char path[64], buf[512], *p;
	unsigned long long u, s;
	FILE *f;
	size_t n;

	snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
	if (tt->n == sizeof tt->t / sizeof tt->t[0] || !(f = fopen(path, "r")))
		return -1;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after "pid (comm) ": state(3) ppid ... cmajflt(13), then utime stime */
	if (!(p = strrchr(buf, ')')) ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &u, &s) != 2)
		return -1;
	tt->t[tt->n].tid = atol(tid);
	tt->t[tt->n].user = u;
	tt->t[tt->n++].sys = s;
	return 0;
}

/* Read every thread's ticks into *tt (tt->ok = 0 when /proc cannot say) and
 * the wall and times() clocks into *out. */
static void cpu_now(struct task_ticks *tt, struct bench_cpu *out)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	tt->ok = d != NULL;
	tt->n = 0;
	while (tt->ok && (de = readdir(d)))
		if (de->d_name[0] != '.' && add_task_ticks(de->d_name, tt) != 0)
			tt->ok = 0;
	if (d)
		closedir(d);
	bench_cpu_now(out);
}

/* The CPU and wall time from (a0, t0) to (a1, t1): per thread, over the
 * threads listed at the second reading (a thread new since the first counts
 * whole); the times() difference when either reading failed. */
static struct bench_cpu cpu_used(const struct task_ticks *a0, const struct bench_cpu *t0,
				 const struct task_ticks *a1, const struct bench_cpu *t1)
{
	struct bench_cpu used = { t1->user_s - t0->user_s, t1->sys_s - t0->sys_s, t1->wall_s - t0->wall_s };
	unsigned long long user = 0, sys = 0;

	if (!a0->ok || !a1->ok)
		return used;
	for (unsigned long i = 0; i < a1->n; i++) {
		unsigned long long u0 = 0, s0 = 0;
		for (unsigned long j = 0; j < a0->n; j++)
			if (a0->t[j].tid == a1->t[i].tid) {
				u0 = a0->t[j].user;
				s0 = a0->t[j].sys;
			}
		user += a1->t[i].user - u0;
		sys += a1->t[i].sys - s0;
	}
	used.user_s = (double)user / USER_HZ;
	used.sys_s = (double)sys / USER_HZ;
	return used;
}

/* Sleep until `seconds` after start_ns (nanosleep may wake early). */
static void sleep_until(uint64_t start_ns, unsigned long seconds)
{
	uint64_t end = start_ns + (uint64_t)seconds * 1000000000ull, now;

	while ((now = bench_now_ns()) < end) {
		uint64_t left = end - now;
		struct timespec ts = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
		nanosleep(&ts, NULL);
	}
}

/* Start the workers of one run (each parked at the start barrier). */
static void start_workers(struct ebizzy *e, struct worker *w)
{
	unsigned long i, n = e->nthreads;

	if (pthread_barrier_init(&e->start, NULL, n + 1) || pthread_barrier_init(&e->done, NULL, n + 1) ||
	    pthread_barrier_init(&e->leave, NULL, n + 1))
		bench_die("pthread_barrier_init");
	for (i = 0; i < n; i++) {
		w[i] = (struct worker){ e, 0, i, e->iters / n + (i < e->iters % n), NULL, 0 };
		if (e->mode == MODE_FREE || e->mode == MODE_DONTNEED)
			w[i].reused = bench_map(e->chunk_len);
		errno = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (errno)
			bench_die("pthread_create");
	}
}

/* Let the workers go, wait until they are done (or the time is up) and
 * return the CPU and wall time of the run in *used; the records looked up. */
static unsigned long run_workers(struct ebizzy *e, struct worker *w, struct bench_cpu *used)
{
	static struct task_ticks a0, a1;
	struct bench_cpu t0, t1;
	unsigned long i, records = 0;

	__atomic_store_n(&e->stop, 0, __ATOMIC_RELAXED);
	cpu_now(&a0, &t0);
	pthread_barrier_wait(&e->start);
	if (e->seconds) {
		sleep_until((uint64_t)(t0.wall_s * 1e9), e->seconds);
		__atomic_store_n(&e->stop, 1, __ATOMIC_RELAXED);
	}
	pthread_barrier_wait(&e->done);
	cpu_now(&a1, &t1);
	pthread_barrier_wait(&e->leave);
	for (i = 0; i < e->nthreads; i++)
		records += w[i].done * e->searches;
	*used = cpu_used(&a0, &t0, &a1, &t1);
	return records;
}

/* Join the workers of a run and free their buffers. */
static void join_workers(struct ebizzy *e, struct worker *w)
{
	unsigned long i;

	for (i = 0; i < e->nthreads; i++) {
		if ((errno = pthread_join(w[i].thread, NULL)))
			bench_die("pthread_join");
		if (w[i].reused)
			bench_unmap(w[i].reused, e->chunk_len);
	}
	pthread_barrier_destroy(&e->start);
	pthread_barrier_destroy(&e->done);
	pthread_barrier_destroy(&e->leave);
}

/* The samples of every metric of one mode, one per run. */
enum { M_RATE, M_USER, M_SYS, M_WALL, M_CPU, M_RECORDS, NMETRICS };
static const char *const metric_names[NMETRICS] = { "rate", "user", "sys", "wall", "cpu", "records" };
static const char *const metric_units[NMETRICS] = { "records/s", "s", "s", "s", "%", "records" };

/* Report every metric of `mode` as skipped when its madvise advice is
 * rejected by the kernel; returns 1 if it did. */
static int skip_unsupported(enum mode mode)
{
	char metric[32];
	int i;

	if ((mode != MODE_FREE || bench_advice_works(MADV_FREE)) &&
	    (mode != MODE_DONTNEED || bench_advice_works(MADV_DONTNEED)))
		return 0;
	for (i = 0; i < NMETRICS; i++) {
		snprintf(metric, sizeof metric, "%s_%s", mode_names[mode], metric_names[i]);
		bench_skip("ebizzy", metric, "madvise advice rejected with EINVAL");
	}
	return 1;
}

/* One run of `mode` with fresh threads; its metrics into v[..][r]. */
static void run_once(struct ebizzy *e, double v[NMETRICS][BENCH_MAX_RUNS], int r)
{
	static struct worker w[MAX_THREADS];
	struct bench_cpu t;
	unsigned long records;

	start_workers(e, w);
	records = run_workers(e, w, &t);
	join_workers(e, w);
	v[M_RATE][r] = (double)records / (t.wall_s > 0 ? t.wall_s : 1e-9);
	v[M_USER][r] = t.user_s;
	v[M_SYS][r] = t.sys_s;
	v[M_WALL][r] = t.wall_s;
	v[M_CPU][r] = 100.0 * (t.user_s + t.sys_s) / (t.wall_s > 0 ? t.wall_s : 1e-9);
	v[M_RECORDS][r] = (double)records;
}

/* Do bench_runs() runs in `mode` and report them. */
static void run_mode(struct ebizzy *e, enum mode mode)
{
	static double v[NMETRICS][BENCH_MAX_RUNS];
	char metric[32];
	int r, i, n = bench_runs();

	if (skip_unsupported(mode))
		return;
	e->mode = mode;
	for (r = 0; r < n; r++)
		run_once(e, v, r);
	for (i = 0; i < NMETRICS; i++) {
		snprintf(metric, sizeof metric, "%s_%s", mode_names[mode], metric_names[i]);
		bench_report("ebizzy", metric, metric_units[i], v[i], n);
	}
}

/* The default thread count: 2 per online CPU, as the original ebizzy. */
static unsigned long default_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	return 2 * (unsigned long)(cpus > 0 ? cpus : 1);
}

/* Set up the chunks and run the chosen modes. */
int main(int argc, char **argv)
{
	struct ebizzy e = { .nchunks = 10, .chunk_len = 512 * 1024, .iters = 1000,
			    .searches = 1, .seed = 1, .nthreads = default_threads() };
	double nthreads;
	int m;

	bench_init(&argc, argv, "ebizzy");
	if (bench_quick()) {
		e.nchunks = 2;
		e.chunk_len = 16 * 1024;
		e.iters = e.nthreads;
	}
	if (parse_args(&e, argc, argv) != 0) {
		fprintf(stderr, "usage: ebizzy [--quick] [--runs N] [-m malloc|mmap|free|dontneed|all]...\n"
				"              [-t THREADS] [-n CHUNKS] [-s BYTES] [-i ITERATIONS | -S SECONDS]\n"
				"              [-k SEARCHES] [-r SEED]\n");
		return 2;
	}
	printf("ebizzy: %lu threads, %lu chunks of %lu bytes, %lu %s per run\n", e.nthreads,
	       e.nchunks, e.chunk_len, e.seconds ? e.seconds : e.iters,
	       e.seconds ? "seconds" : "iterations");
	nthreads = (double)e.nthreads;
	bench_report("ebizzy", "threads", "threads", &nthreads, 1);
	setup(&e);
	for (m = 0; m < e.nmodes; m++)
		run_mode(&e, (enum mode)e.modes[m]);
	return bench_finish();
}
