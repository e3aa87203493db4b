/* mm/lazyfree.h -- MADV_FREE: anonymous pages given up that reclaim may
 * take back while nobody writes them.
 *
 * MADV_FREE on a page mapped once (refcount 1, in a private PT page) makes
 * its entry LAZYFREE and clean (hardware D bit cleared atomically, one TLB
 * flush for the whole range) and sets the entry's bit in the record of its
 * PT page (mm/pt/lazyfree_rec.h: one record per PT page, oldest MADV_FREE
 * first). A page written again keeps its data: reclaim sees D set and
 * leaves it. Reclaim takes the oldest record and looks at every page it
 * names (mm/reclaim.c): "oldest first" is per PT page. A PT page shared
 * by several address spaces is never marked: its frames are mapped more
 * than once.
 *
 *   madvise(MADV_FREE) --> lazyfree_range (here: which pages may be marked)
 *                             | marks entries, sets record bits
 *                             v
 *                       mm/pt/lazyfree_rec (the records, kept exact by the
 *                             |             leaf writer as entries change)
 *                             v
 *   low memory -----> reclaim (mm/reclaim.c: which pages are discarded)
 */
#ifndef MM_LAZYFREE_H
#define MM_LAZYFREE_H

#include "mm/pt/lazyfree_rec.h"

/* MADV_FREE of the present pages of [start, end) in pgt (the caller checked
 * that the range is private anonymous memory). Pages mapped more than once
 * are left alone; so is a PT page's part when no record can be allocated
 * for it (the advice is only a hint). One TLB batch for the range. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

#endif
