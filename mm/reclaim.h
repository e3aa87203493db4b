/* mm/reclaim.h -- taking lazy-free pages back under memory pressure.
 *
 * The allocator calls the reclaimer (page_reclaim_hook, mm/page.h):
 *   - when free memory is below the low watermark: reclaim up to the high
 *     watermark, so later allocations do not each pay for a scan;
 *   - when the free lists cannot satisfy a request (the slow path): reclaim
 *     what is needed, then the allocator retries once.
 * The reclaimer takes lazy-free records oldest first. A page whose entry is
 * still clean (D clear), mapped once and in a private PT page is discarded:
 * entry cleared (the next read is a zero-fill fault), frame freed after the
 * TLB batch flush; a PT page left empty is freed after that flush too.
 * Reclaim never unshares and never gives a PD entry its W bit back. Any
 * other page was written or is shared: it becomes
 * normal anonymous memory again. A written page is never lost.
 * If nothing is reclaimable the allocation fails: a user page fault then
 * kills the process with the largest RSS (kernel/oom.c, counted in
 * fault_stats.oom_kills) and retries, a system call returns -ENOMEM. The
 * kernel never panics for it.
 */
#ifndef MM_RECLAIM_H
#define MM_RECLAIM_H

#include "lib/types.h"

struct reclaim_stats {
	uint64_t runs;        /* reclaimer invocations that scanned something */
	uint64_t scans;       /* lazy-free pages looked at */
};
extern struct reclaim_stats reclaim_stats;

/* Watermarks in free frames (set by reclaim_init from the RAM size). */
extern uint64_t reclaim_low, reclaim_high;

/* Install the allocator hook and set the watermarks. */
void reclaim_init(void);

/* Scan lazy-free pages oldest first until `want` frames were discarded or
 * the list is empty. Returns the frames freed. */
uint64_t reclaim_lazyfree(uint64_t want);

#endif
