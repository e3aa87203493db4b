/* mm/fault.h -- page-fault statistics (as_fault itself is in mm/as.h). */
#ifndef MM_FAULT_H
#define MM_FAULT_H

#include "lib/types.h"

struct fault_stats {
	uint64_t zero;        /* demand-zero pages */
	uint64_t zero_page;   /* reads that mapped the shared zero page */
	uint64_t file;        /* file pages mapped */
	uint64_t cow;         /* copy-on-write faults */
	uint64_t cow_reuse;   /* ... resolved without a copy */
	uint64_t spurious;    /* nothing to do */
};
extern struct fault_stats fault_stats;

/* Allocate the shared zero page (mm_init, once the frame allocator runs). */
void fault_init(void);

struct page;

/* Is pg the shared zero page (what reads of untouched private anonymous
 * memory map)? NULL is not. */
bool page_is_zero_page(const struct page *pg);

#endif
