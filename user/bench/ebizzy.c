/*
 * user/bench/ebizzy.c -- a clean-room, single-process ebizzy: a web-server
 * like loop that allocates, copies, searches and frees memory.
 *
 * Setup: CHUNKS chunks of KIB KiB each, filled with sorted random 64-bit
 * records. One iteration: pick a random chunk, get a buffer of the same size
 * (how depends on the mode), copy the chunk into it, look up SEARCHES random
 * records of the chunk in the copy by binary search (every one must be
 * found), then give the buffer back. Modes:
 *   malloc     malloc + free for every buffer (the libc decides)
 *   mmap       mmap + munmap for every buffer
 *   free       one buffer, madvise(MADV_FREE) after each use
 *   dontneed   one buffer, madvise(MADV_DONTNEED) after each use
 * Each run does the same fixed work, so user, system and wall seconds compare
 * across kernels; records/s = lookups per wall second. Metrics per mode:
 * <mode>_rate (records/s), <mode>_user, <mode>_sys, <mode>_wall (s).
 *
 * Usage: ebizzy [--quick] [--runs N] [-m MODE|all] [-n CHUNKS] [-s KIB]
 *               [-i ITERATIONS] [-k SEARCHES] [-S SEED]
 */
#include "bench_mem.h"
#include "bench_rng.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mode { MODE_MALLOC, MODE_MMAP, MODE_FREE, MODE_DONTNEED, NMODES };
static const char *const mode_names[NMODES] = { "malloc", "mmap", "free", "dontneed" };

struct ebizzy {
	unsigned long nchunks, chunk_kib, iters, searches, seed;
	size_t chunk_len, nrecords;   /* bytes and records per chunk */
	uint64_t **chunks;
	void *reused;                 /* the one buffer of free/dontneed modes */
};

/* Order for qsort and bsearch of records. */
static int cmp_record(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Parse "-X value" options into e; returns 0, or -1 on a bad option. */
static int parse_args(struct ebizzy *e, int argc, char **argv, int *mode)
{
	int i, m;

	for (i = 1; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];
		if (!strcmp(o, "-m")) {
			for (m = 0; m < NMODES && strcmp(v, mode_names[m]); m++)
				;
			if (m == NMODES && strcmp(v, "all"))
				return -1;
			*mode = m;
		} else if (!strcmp(o, "-n")) e->nchunks = strtoul(v, NULL, 10);
		else if (!strcmp(o, "-s")) e->chunk_kib = strtoul(v, NULL, 10);
		else if (!strcmp(o, "-i")) e->iters = strtoul(v, NULL, 10);
		else if (!strcmp(o, "-k")) e->searches = strtoul(v, NULL, 10);
		else if (!strcmp(o, "-S")) e->seed = strtoul(v, NULL, 10);
		else return -1;
	}
	if (i != argc || !e->nchunks || !e->chunk_kib || !e->iters || !e->searches)
		return -1;
	return 0;
}

/* Allocate the chunks and fill each with sorted random records. */
static void setup(struct ebizzy *e)
{
	struct bench_rng rng;
	unsigned long c;
	size_t r;

	e->chunk_len = e->chunk_kib * 1024;
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
	e->reused = bench_map(e->chunk_len);
}

/* A buffer of chunk_len bytes, obtained the way `mode` says. */
static void *get_buffer(struct ebizzy *e, enum mode mode)
{
	void *p;

	switch (mode) {
	case MODE_MALLOC:
		if (!(p = malloc(e->chunk_len)))
			bench_die("malloc");
		return p;
	case MODE_MMAP:
		return bench_map(e->chunk_len);
	default:
		return e->reused;
	}
}

/* Give back a get_buffer buffer the way `mode` says. */
static void put_buffer(struct ebizzy *e, enum mode mode, void *p)
{
	switch (mode) {
	case MODE_MALLOC: free(p); break;
	case MODE_MMAP: bench_unmap(p, e->chunk_len); break;
	case MODE_FREE: bench_advise(p, e->chunk_len, MADV_FREE, "madvise(MADV_FREE)"); break;
	default: bench_advise(p, e->chunk_len, MADV_DONTNEED, "madvise(MADV_DONTNEED)"); break;
	}
}

/* One iteration: copy a random chunk and look up `searches` of its records. */
static void iterate(struct ebizzy *e, enum mode mode, struct bench_rng *rng)
{
	const uint64_t *chunk = e->chunks[bench_rng_below(rng, e->nchunks)];
	uint64_t *copy = get_buffer(e, mode);
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
	put_buffer(e, mode, copy);
}

/* Report the n samples of metric <mode>_<what>. */
static void report(enum mode mode, const char *what, const char *unit, double *v, int n)
{
	char metric[32];

	snprintf(metric, sizeof metric, "%s_%s", mode_names[mode], what);
	bench_report("ebizzy", metric, unit, v, n);
}

/* Report every metric of `mode` as skipped when its madvise advice is
 * rejected by the kernel; returns 1 if it did. */
static int skip_unsupported(enum mode mode)
{
	static const char *const what[] = { "rate", "user", "sys", "wall" };
	char metric[32];
	size_t i;

	if ((mode != MODE_FREE || bench_advice_works(MADV_FREE)) &&
	    (mode != MODE_DONTNEED || bench_advice_works(MADV_DONTNEED)))
		return 0;
	for (i = 0; i < sizeof what / sizeof what[0]; i++) {
		snprintf(metric, sizeof metric, "%s_%s", mode_names[mode], what[i]);
		bench_skip("ebizzy", metric, "madvise advice rejected with EINVAL");
	}
	return 1;
}

/* Do bench_runs() runs of the fixed work in `mode` and report them. */
static void run_mode(struct ebizzy *e, enum mode mode)
{
	double rate[BENCH_MAX_RUNS], user[BENCH_MAX_RUNS], sys[BENCH_MAX_RUNS], wall[BENCH_MAX_RUNS];
	int r, n = bench_runs();

	if (skip_unsupported(mode))
		return;

	for (r = 0; r < n; r++) {
		struct bench_rng rng;
		struct bench_cpu t0, t1;
		unsigned long i;

		bench_rng_seed(&rng, e->seed + 1);
		bench_cpu_now(&t0);
		for (i = 0; i < e->iters; i++)
			iterate(e, mode, &rng);
		bench_cpu_now(&t1);
		user[r] = t1.user_s - t0.user_s;
		sys[r] = t1.sys_s - t0.sys_s;
		wall[r] = t1.wall_s - t0.wall_s;
		rate[r] = (double)e->iters * (double)e->searches / (wall[r] > 0 ? wall[r] : 1e-9);
	}
	report(mode, "rate", "records/s", rate, n);
	report(mode, "user", "s", user, n);
	report(mode, "sys", "s", sys, n);
	report(mode, "wall", "s", wall, n);
}

/* Set up the chunks and run the chosen mode(s). */
int main(int argc, char **argv)
{
	struct ebizzy e = { 16, 256, 1000, 64, 1, 0, 0, NULL, NULL };
	int mode = NMODES, m;

	bench_init(&argc, argv, "ebizzy");
	if (bench_quick()) {
		e.nchunks = 2;
		e.chunk_kib = 16;
		e.iters = 1;
	}
	if (parse_args(&e, argc, argv, &mode) != 0) {
		fprintf(stderr, "usage: ebizzy [--quick] [--runs N] [-m malloc|mmap|free|dontneed|all]\n"
				"              [-n CHUNKS] [-s KIB] [-i ITERATIONS] [-k SEARCHES] [-S SEED]\n");
		return 2;
	}
	setup(&e);
	for (m = 0; m < NMODES; m++)
		if (mode == NMODES || mode == m)
			run_mode(&e, (enum mode)m);
	return bench_finish();
}
