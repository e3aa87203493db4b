/*
 * tools/bench/policies.h -- page-replacement policies simulated over a
 * reference trace (user/bench/bench_trace.h), for the replacement
 * benchmark's table (issue 39): how many references miss with `frames`
 * frames, on a cold start (every first touch misses).
 *
 *   OPT    Belady's: evict the page whose next reference is farthest (the
 *          fewest misses any policy can have; it needs the future)
 *   LRU    evict the page referenced longest ago
 *   CLOCK  one Accessed bit per frame, a hand that clears it and evicts
 *          the first frame found clear (Linux's inactive list is a CLOCK)
 *   FIFO   evict the page that came in first
 *   CLOCK-Pro  hot and cold pages on one clock, with a test period that
 *          remembers recently evicted cold pages: a page re-referenced
 *          within it (a short reuse distance) becomes hot; LIRS on a clock
 *   twolist  CLOCK-Pro's outline on two lists, as Pagoda's kernel does it
 *          (mm/swap.c): no non-resident pages listed, a test period
 *          measured in the hot hand's steps (policies.c)
 */
#ifndef TOOLS_BENCH_POLICIES_H
#define TOOLS_BENCH_POLICIES_H

#include <stdint.h>

enum policy { POLICY_OPT, POLICY_LRU, POLICY_CLOCK, POLICY_FIFO, POLICY_CLOCKPRO, POLICY_TWOLIST,
	      POLICIES };

/* The policy's name ("opt", ...), or NULL past the last. */
const char *policy_name(enum policy p);

/* Misses of policy p over refs[0..n) (pages in [0, pages)) with frames
 * frames (>= 1), or UINT64_MAX when out of memory. */
uint64_t policy_misses(enum policy p, const uint64_t *refs, uint64_t n, uint64_t pages,
		       uint64_t frames);

#endif
