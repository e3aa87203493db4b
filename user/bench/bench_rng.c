/*
 * user/bench/bench_rng.c -- SplitMix64 (Steele, Lea, Flood 2014): a 64-bit
 * counter stepped by the golden-ratio constant, then a bijective mixer.
 */
#include "bench_rng.h"

#define SPLITMIX_GAMMA 0x9e3779b97f4a7c15ull
#define SPLITMIX_MUL1 0xbf58476d1ce4e5b9ull
#define SPLITMIX_MUL2 0x94d049bb133111ebull

void bench_rng_seed(struct bench_rng *r, uint64_t seed)
{
	r->state = seed;
}

uint64_t bench_rng_next(struct bench_rng *r)
{
	uint64_t z = (r->state += SPLITMIX_GAMMA);

	z = (z ^ (z >> 30)) * SPLITMIX_MUL1;
	z = (z ^ (z >> 27)) * SPLITMIX_MUL2;
	return z ^ (z >> 31);
}

uint64_t bench_rng_below(struct bench_rng *r, uint64_t n)
{
	/* Reject the top partial block of 2^64 so every residue is equally
	 * likely: values below `limit` are a whole number of copies of [0, n). */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t x;

	do
		x = bench_rng_next(r);
	while (x >= limit);
	return x % n;
}
