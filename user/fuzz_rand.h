/* user/fuzz_rand.h -- the random numbers of the randomized testers
 * (vmtester, sysfuzz): splitmix64, so that a run is a function of its seed
 * alone, on every C library and kernel. */
#ifndef USER_FUZZ_RAND_H
#define USER_FUZZ_RAND_H

#include <stdint.h>

/* fuzz_rand64: the next number of the sequence whose state is *state. */
static inline uint64_t fuzz_rand64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

#endif
