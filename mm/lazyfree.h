/* mm/lazyfree.h -- MADV_FREE: anonymous pages given up, which reclaim
 * takes first and never writes out, while nobody writes them again.
 *
 * A lazy-free page is an anonymous frame on the lazy list of the
 * replacement lists (LRU_LAZY, mm/frame/lru.h; its AF_LAZYFREE flag), as
 * Linux puts such a folio on its inactive file list with PG_swapbacked
 * clear. Nothing in the page tables says "lazy": the entry is only clean.
 *
 *   madvise(MADV_FREE)              a page mapped once, in a private PT page:
 *     lazyfree_range ------------>  entry's D cleared (one TLB flush for the
 *                                   range), out of the swap cache, to the
 *                                   tail of LRU_LAZY
 *                                           |
 *   a write: the MMU sets D again           |  (the page stays on the list)
 *                                           v
 *   low memory: lazyfree_reclaim ---->  head of LRU_LAZY, through the reverse
 *   (a shrinker, asked first)           map (mm/anon_rmap.h) to its entry:
 *                                       clean --> cleared (the next touch is
 *                                                 a zero-fill fault), frame
 *                                                 freed after the flush
 *                                       dirty, or reachable otherwise too -->
 *                                                 normal memory again, onto
 *                                                 the list a new page starts on
 *
 * A page another address space reaches too (fork after MADV_FREE: a
 * second entry, or the PT page they share) or that the kernel holds is
 * kept as a written one is: both processes keep the data, whether or not
 * fork shared the tables. Reclaim never unshares and never writes a page
 * out.
 */
#ifndef MM_LAZYFREE_H
#define MM_LAZYFREE_H

#include "lib/types.h"

struct page;
struct pagetable;

/* MADV_FREE of the present pages of [start, end) in pgt (the caller checked
 * that the range is private anonymous memory, and holds the address space
 * for reading). Pages mapped more than once, in a PT page shared by several
 * address spaces, or held by the reclaimer are left alone (the advice is
 * only a hint); a page in the swap cache leaves it (its slot is freed) or
 * is left alone. Allocates nothing; one TLB batch for the range. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* Discard lazy-free pages oldest first until `want` frames were freed or
 * each page on the list was looked at once. Holds nothing on entry (it
 * takes address-space locks, tried only, and sleeps on the reverse map's
 * walk). Returns the frames freed. Reclaim asks it first (a
 * SHRINKER_FIRST | SHRINKER_UNLOCKED shrinker, lazyfree_init): the reclaimer
 * thread and a task at a system call's or fault's entry; the reverse map's
 * walk ranks before the address-space lock a fault between attempts holds,
 * so such a fault waits for the thread, as for swap. */
uint64_t lazyfree_reclaim(uint64_t want);

/* Lazy-free page pg, held by the caller (page_hold; the hold is let go
 * here): discarded if its entry is clean and its own (true: the frame is
 * freed); left on the list for a later look if an address space that may
 * map it was busy; else back among the normal pages: it was written, is
 * reachable otherwise too, or has no present entry to clear (PROT_NONE),
 * which would keep the reclaimer coming back for it. Reclaim's step, and
 * MADV_PAGEOUT's for such a page. Sleeps (the reverse map's walk). */
bool lazyfree_discard(struct page *pg);

/* Register lazyfree_reclaim with the reclaimer. At boot. */
void lazyfree_init(void);

struct lazyfree_stats {
	uint64_t scanned;      /* pages reclaim looked at (pgscan of the lazy list) */
	uint64_t marked;       /* pages MADV_FREE made lazy-free (pglazyfree) */
	uint64_t discarded;    /* clean pages reclaim freed (pglazyfreed) */
	uint64_t reused;       /* written again, or reachable from another address
				  space, when reclaim looked: kept (pglazyfree_reused) */
};
extern struct lazyfree_stats lazyfree_stats;

#endif
