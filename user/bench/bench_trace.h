/*
 * user/bench/bench_trace.h -- page-reference traces for the page-replacement
 * benchmark (issue 39): the same seeded sequence of page numbers in the
 * program that replays it on a kernel (user/bench/replace.c) and in the
 * simulator that computes what OPT, LRU, CLOCK and FIFO would do with it
 * (tools/bench/replace_sim.c).
 *
 *   loop      0, 1, ..., P-1, 0, 1, ...          (LRU's worst case)
 *   uniform   every page equally likely
 *   zipf      page of rank r with probability ~ 1/r (s = 1), ranks
 *             scattered over the region
 *   hotcold   90 % of references to a hot tenth of the pages, 10 % to all
 *   phases    a working set of P/4 pages that moves every 2P references
 *   scan      a hot eighth of the pages, then one scan of every page,
 *             in turns of P references each
 *
 * Everything is a function of (kind, pages, seed): never of the kernel.
 */
#ifndef BENCH_TRACE_H
#define BENCH_TRACE_H

#include <stdint.h>
#include "bench_rng.h"

enum trace_kind {
	TRACE_LOOP, TRACE_UNIFORM, TRACE_ZIPF, TRACE_HOTCOLD, TRACE_PHASES, TRACE_SCAN,
	TRACE_KINDS
};

struct trace {
	enum trace_kind kind;
	uint64_t pages;      /* references are in [0, pages) */
	uint64_t n;          /* references made so far */
	struct bench_rng rng;
	double *zipf_cdf;    /* zipf: P cumulative probabilities (trace_init allocates) */
	uint64_t base;       /* phases: where the working set starts now */
};

/* The name of kind k ("loop", ...), or NULL past the last. */
const char *trace_name(enum trace_kind k);

/* The kind called name, or -1. */
int trace_kind_of(const char *name);

/* Start trace t of kind over pages pages (>= 8) with seed: 0, or -1 when
 * out of memory (zipf's table). trace_free releases what it holds. */
int trace_init(struct trace *t, enum trace_kind kind, uint64_t pages, uint64_t seed);
void trace_free(struct trace *t);

/* The next page of t. */
uint64_t trace_next(struct trace *t);

#endif
