/*
 * user/bench/bench_trace.c -- page-reference traces (bench_trace.h).
 */
#include "bench_trace.h"

#include <stdlib.h>
#include <string.h>

static const char *const names[TRACE_KINDS] = {
	"loop", "uniform", "zipf", "hotcold", "phases", "scan",
};

/* A fixed permutation of [0, pages): rank r's page (ranks of zipf and the
 * hot pages spread over the region, not its first pages). The multiplier
 * is a prime larger than any region, so it is coprime to pages. */
static uint64_t scatter(uint64_t r, uint64_t pages)
{
	return (r * 2654435761ull) % pages;
}

const char *trace_name(enum trace_kind k)
{
	return k < TRACE_KINDS ? names[k] : NULL;
}

int trace_kind_of(const char *name)
{
	for (int k = 0; k < TRACE_KINDS; k++)
		if (strcmp(name, names[k]) == 0)
			return k;
	return -1;
}

/* zipf's cumulative table: cdf[r] = sum of 1/(i+1) for i <= r, normalized. */
static int zipf_table(struct trace *t)
{
	double sum = 0;
	if (!(t->zipf_cdf = malloc(t->pages * sizeof(double))))
		return -1;
	for (uint64_t r = 0; r < t->pages; r++)
		t->zipf_cdf[r] = (sum += 1.0 / (double)(r + 1));
	for (uint64_t r = 0; r < t->pages; r++)
		t->zipf_cdf[r] /= sum;
	return 0;
}

int trace_init(struct trace *t, enum trace_kind kind, uint64_t pages, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->pages = pages;
	bench_rng_seed(&t->rng, seed);
	return kind == TRACE_ZIPF ? zipf_table(t) : 0;
}

void trace_free(struct trace *t)
{
	free(t->zipf_cdf);
	t->zipf_cdf = NULL;
}

/* The rank whose cumulative probability first reaches u (binary search). */
static uint64_t zipf_rank(const struct trace *t, double u)
{
	uint64_t lo = 0, hi = t->pages - 1;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (t->zipf_cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A uniform double in [0, 1). */
static double unit(struct trace *t)
{
	return (double)(bench_rng_next(&t->rng) >> 11) / (double)(1ull << 53);
}

static uint64_t next_of(struct trace *t, uint64_t i)
{
	uint64_t p = t->pages, hot = p / 10, set = p / 4, hotset = p / 8;
	switch (t->kind) {
	case TRACE_LOOP:
		return i % p;
	case TRACE_UNIFORM:
		return bench_rng_below(&t->rng, p);
	case TRACE_ZIPF:
		return scatter(zipf_rank(t, unit(t)), p);
	case TRACE_HOTCOLD:
		return bench_rng_below(&t->rng, 10) < 9 ? scatter(bench_rng_below(&t->rng, hot), p) :
		       bench_rng_below(&t->rng, p);
	case TRACE_PHASES:
		if (i % (2 * p) == 0)
			t->base = bench_rng_below(&t->rng, p);
		return (t->base + bench_rng_below(&t->rng, set)) % p;
	case TRACE_SCAN:
		return (i / p) % 2 == 0 ? scatter(bench_rng_below(&t->rng, hotset), p) : i % p;
	default:
		return 0;
	}
}

uint64_t trace_next(struct trace *t)
{
	return next_of(t, t->n++);
}
