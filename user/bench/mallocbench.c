/*
 * user/bench/mallocbench.c -- malloc/free cost by size class and pattern,
 * per malloc+free pair, every block written once per page (so the cost of
 * getting memory from the kernel, and of purge policies giving it back, is
 * included). Later runs of this program under Pagoda's MALLOC_PURGE policies
 * are just configurations of the runner.
 *   sizes:    small 16..512 B, medium 1..64 KiB, large 128 KiB..1 MiB
 *   patterns: pair    malloc then free at once
 *             batch   malloc LIVE blocks, then free them oldest first
 *             random  LIVE slots; each step frees a random slot's block
 *                     (if any) and mallocs a new one there
 * Metric names: <pattern>_<size>. Usage: mallocbench [--quick] [--runs N] [--ms N]
 */
#include "bench_mem.h"
#include "bench_rng.h"
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>

#define LIVE 64         /* blocks per iteration; live blocks in batch/random */
#define SEED 12345

enum pattern { PAIR, BATCH, RANDOM, NPATTERNS };
static const char *const pattern_names[NPATTERNS] = { "pair", "batch", "random" };

static const struct size_class {
	const char *name;
	size_t min, max;
} classes[] = {
	{ "small", 16, 512 },
	{ "medium", 1024, 64 * 1024 },
	{ "large", 128 * 1024, 1024 * 1024 },
};

struct mb_ctx {
	enum pattern pattern;
	const struct size_class *cls;
	struct bench_rng rng;
	void *slot[LIVE];
};

/* malloc a random size of the class and write each of its pages. */
static void *get_block(struct mb_ctx *c)
{
	size_t sz = c->cls->min + bench_rng_below(&c->rng, c->cls->max - c->cls->min + 1);
	void *p = malloc(sz);

	if (!p)
		bench_die("malloc");
	bench_touch(p, sz, BENCH_TOUCH_WRITE);
	return p;
}

/* Free every occupied slot (oldest first) and empty it. */
static void free_slots(struct mb_ctx *c)
{
	int i;

	for (i = 0; i < LIVE; i++) {
		free(c->slot[i]);
		c->slot[i] = NULL;
	}
}

/* One iteration: LIVE mallocs and their frees in the context's pattern. */
static void one_iteration(struct mb_ctx *c)
{
	int i;

	for (i = 0; i < LIVE; i++) {
		if (c->pattern == PAIR) {
			free(get_block(c));
		} else {
			int k = c->pattern == BATCH ? i : (int)bench_rng_below(&c->rng, LIVE);
			free(c->slot[k]);
			c->slot[k] = get_block(c);
		}
	}
	free_slots(c);
}

/* Time `iters` iterations. */
static uint64_t mb_body(void *arg, uint64_t iters)
{
	uint64_t t0 = bench_now_ns();

	while (iters--)
		one_iteration(arg);
	return bench_now_ns() - t0;
}

/* Measure every pattern with every size class. */
int main(int argc, char **argv)
{
	struct mb_ctx c = { PAIR, NULL, { 0 }, { NULL } };
	char metric[32];
	size_t k;

	bench_init(&argc, argv, "mallocbench");
	for (c.pattern = PAIR; c.pattern < NPATTERNS; c.pattern++) {
		for (k = 0; k < sizeof classes / sizeof classes[0]; k++) {
			c.cls = &classes[k];
			bench_rng_seed(&c.rng, SEED);
			snprintf(metric, sizeof metric, "%s_%s", pattern_names[c.pattern], c.cls->name);
			bench_time_body("mallocbench", metric, mb_body, &c, LIVE);
		}
	}
	return bench_finish();
}
