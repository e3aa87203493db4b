/* mm/pt/pttree.h -- describe an address space's page-table pages, for the
 * pictures of ptdraw (user/ptdraw.c) and the pagoda_pttree system call.
 *
 * Walks with mm/pt/walk.c (read only: no unsharing, no allocation) and reads
 * each table page's counts from its struct page; the leaf entries of each
 * PT page are summarised (present, COW, lazy-free, file, zero page) through
 * the pte.h accessors. A PT page shared with other address spaces is
 * described the same way in each: same pa, same counts.
 */
#ifndef MM_PTTREE_H
#define MM_PTTREE_H

#include "lib/types.h"
#include "libc/include/pagoda/pttree.h"

struct pagetable;

/* Describe the table pages of pgt that map part of [lo, hi) (page aligned,
 * user half; else a panic from the walker), PML4 first, then depth first in
 * address order, down to `depth` levels (1..4; 4 reaches the PT pages).
 * Fills out[0 .. min(n, max)) and returns n, the number of table pages.
 * Never allocates, never changes an entry. */
size_t pt_tree(struct pagetable *pgt, vaddr_t lo, vaddr_t hi, int depth,
	       struct pagoda_ptnode *out, size_t max);

#endif
