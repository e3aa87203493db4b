/* mm/frame/buddy.h -- internals shared by the frame database and the buddy
 * allocator (not for users of mm/frame/page.h). */
#ifndef MM_BUDDY_H
#define MM_BUDDY_H

#include "mm/frame/page.h"

/* Frames moved between a CPU's free-frame cache (PCP_FRAMES of them at
 * most, arch/x86_64/percpu.h) and the free lists at a time. */
#define PCP_BATCH 16

/* Empty every free list (page_db_init, before any insert). */
void buddy_reset(void);

/* Put a block of 2^order frames (already PG_FREE, refcount 0) on the free
 * lists, merging it with free buddies; counts it in mm_stats.free. */
void buddy_insert(struct page *pg, unsigned order);

/* Set the type of the 2^order frames at pg, keeping mm_stats.by_type. */
void frames_set_type(struct page *pg, unsigned order, enum page_type t);

/* page_free() on behalf of caller (named in a panic). */
void page_free_from(struct page *pg, unsigned order, const void *caller);

/* Free lists, per order (exposed for tests and meminfo). */
uint64_t buddy_free_blocks(unsigned order);

#endif
