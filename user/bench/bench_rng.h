/*
 * user/bench/bench_rng.h -- a small seeded pseudo-random generator
 * (SplitMix64), so every run and every kernel sees the same sequence.
 */
#ifndef BENCH_RNG_H
#define BENCH_RNG_H

#include <stdint.h>

struct bench_rng {
	uint64_t state;
};

/* Start the generator at `seed` (any value, 0 included). */
void bench_rng_seed(struct bench_rng *r, uint64_t seed);

/* Next 64 uniformly distributed bits. */
uint64_t bench_rng_next(struct bench_rng *r);

/* Uniform integer in [0, n) without modulo bias; n must be >= 1. */
uint64_t bench_rng_below(struct bench_rng *r, uint64_t n);

#endif
