/*
 * tools/bench/replace_sim.c -- what OPT, LRU, CLOCK and FIFO would do with
 * a page-reference trace (issue 39's replacement benchmark): the same
 * trace the guest program replays (user/bench/bench_trace.h), simulated on
 * the host for each number of frames given.
 *
 *   replace_sim --trace NAME --pages P --refs N [--seed S] --frames F[,F...]
 *
 * prints one line per frame count:
 *
 *   SIM trace=zipf pages=1000 refs=20000 seed=1 frames=100 opt=... lru=... clock=... fifo=... first=...
 *
 * (misses on a cold start; first= of them are first touches, which a kernel
 * serves without reading swap). Exit status 2 on bad arguments, 1 out of
 * memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies.h"
#include "../../user/bench/bench_trace.h"

static void usage(void)
{
	fprintf(stderr, "usage: replace_sim --trace NAME --pages P --refs N [--seed S] "
		"--frames F[,F...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *name = NULL, *frames = NULL;
	uint64_t pages = 0, n = 0, seed = 1;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--trace"))
			name = argv[i + 1];
		else if (!strcmp(argv[i], "--pages"))
			pages = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--refs"))
			n = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--frames"))
			frames = argv[i + 1];
		else
			usage();
	}
	int kind = name ? trace_kind_of(name) : -1;
	if (argc % 2 == 0 || kind < 0 || pages < 8 || !n || !frames)
		usage();
	struct trace t;
	uint64_t *refs = malloc(n * sizeof(*refs));
	if (!refs || trace_init(&t, (enum trace_kind)kind, pages, seed) != 0)
		return 1;
	for (uint64_t i = 0; i < n; i++)
		refs[i] = trace_next(&t);
	trace_free(&t);
	uint64_t first = 0;
	uint8_t *seen = calloc(pages, 1);
	if (!seen)
		return 1;
	for (uint64_t i = 0; i < n; i++)
		first += !seen[refs[i]], seen[refs[i]] = 1;
	free(seen);
	for (const char *f = frames; *f; f += *f == ',') {
		char *end;
		uint64_t k = strtoull(f, &end, 0);
		if (end == f || !k)
			usage();
		printf("SIM trace=%s pages=%llu refs=%llu seed=%llu frames=%llu", name,
		       (unsigned long long)pages, (unsigned long long)n, (unsigned long long)seed,
		       (unsigned long long)k);
		for (int p = 0; p < POLICIES; p++) {
			uint64_t m = policy_misses((enum policy)p, refs, n, pages, k);
			if (m == UINT64_MAX)
				return 1;
			printf(" %s=%llu", policy_name((enum policy)p), (unsigned long long)m);
		}
		printf(" first=%llu\n", (unsigned long long)first);
		f = end;
	}
	free(refs);
	return 0;
}
