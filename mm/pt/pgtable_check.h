/* mm/pt/pgtable_check.h -- self-checks of an address space's page tables. */
#ifndef MM_PGTABLE_CHECK_H
#define MM_PGTABLE_CHECK_H

#include "lib/types.h"

struct pagetable;

/* Check that every table page reachable in [start, end) of pgt is a
 * PG_PAGETABLE frame of the right level with a share count >= 1, whose
 * present count equals its present entries, and that every leaf maps a
 * frame that is in use (not free). Panics naming the table page or the
 * address; returns the table pages checked. */
uint64_t pgt_check(struct pagetable *pgt, vaddr_t start, vaddr_t end);

#endif
