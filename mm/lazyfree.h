/* mm/lazyfree.h -- the lazy-free list: anonymous pages given up with
 * MADV_FREE that reclaim may take back while nobody writes them.
 *
 * MADV_FREE on a page mapped once (refcount 1, in a private PT page) makes
 * its entry LAZYFREE and clean (hardware D bit cleared, TLB flushed) and
 * appends a record to the list, oldest first:
 *
 *   lazyfree_list --> [pgt A, va 0x1000, pg] --> [pgt B, va 0x7000, pg] --> ...
 *                       ^                          ^
 *                       pg->lazy                   pg->lazy
 *
 * The record is the back pointer reclaim needs (which address space, which
 * address); pg->lazy points back at it. Invariant (lazyfree_check):
 *   record R exists  <=>  R->pg->lazy == R, and the entry of R->pgt at R->va
 *   is present, maps R->pg and has PTE_LAZYFREE.
 * So every code path that clears or replaces a leaf entry calls
 * lazyfree_forget() first (unmap, munmap, MADV_DONTNEED, exit teardown, COW
 * replacement, fork copy). A PTE_LAZYFREE bit without a record (left in a
 * PT page that is shared, where reclaim cannot write) means nothing.
 */
#ifndef MM_LAZYFREE_H
#define MM_LAZYFREE_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "arch/x86_64/pte.h"

struct page;
struct pagetable;

struct lazyfree_rec {
	struct list link;          /* on lazyfree_list, oldest first */
	struct pagetable *pgt;     /* the one address space mapping pg ... */
	vaddr_t va;                /* ... at this address */
	struct page *pg;
};

struct lazyfree_stats {
	uint64_t pages;        /* records on the list now (meminfo LazyFree) */
	uint64_t marked;       /* pages marked by MADV_FREE (pglazyfree) */
	uint64_t discarded;    /* clean pages reclaim freed (pglazyfreed) */
	uint64_t reused;       /* written again before reclaim: kept */
	uint64_t forgotten;    /* unmapped, replaced or forked while lazy */
};
extern struct lazyfree_stats lazyfree_stats;
extern struct list lazyfree_list;

/* Guards the list, every record, pg->lazy and lazyfree_stats (rank
 * LOCK_RANK_LAZYFREE: taken inside a PT page's lock, mm/ptpage.h; reclaim,
 * holding it, takes PT locks only with spin_trylock). A record exists
 * while its entry maps the page, so a CPU holding this lock may walk to a
 * record's entry: its tables cannot be freed meanwhile (clearing the entry
 * drops the record first, under this lock). */
extern struct spinlock lazyfree_lock;

/* MADV_FREE of the present pages of [start, end) in pgt (the caller checked
 * that the range is private anonymous memory). Pages mapped more than once
 * are left alone; so is everything when no record can be allocated (the
 * advice is only a hint). One TLB batch for the range. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* The entry e of pgt at va is about to be cleared or replaced: if it is the
 * lazy-free mapping of its frame, drop the record (the page is no longer
 * lazy-free). Cheap when e is not LAZYFREE. */
void lazyfree_forget_entry(struct pagetable *pgt, vaddr_t va, pte_t e);
static inline void lazyfree_forget(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	if (pte_lazyfree(e))
		lazyfree_forget_entry(pgt, va, e);
}

/* pgt stops using PT page pt (mapping the 2 MiB at va) without clearing
 * its entries -- it drops its share of a PT page other address spaces still
 * use (munmap, exit): drop pgt's records for the entries in it. */
void lazyfree_forget_table(struct pagetable *pgt, struct page *pt, vaddr_t va);

/* Drop pgt's records for addresses in [start, end): fork shares the PD page
 * mapping them with another address space (no record lives below a shared
 * PD page). O(records on the list); nothing when the list is empty. */
void lazyfree_forget_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* Unlink record r, clear r->pg->lazy, free the record (for reclaim, which
 * holds lazyfree_lock). */
void lazyfree_drop(struct lazyfree_rec *r);

/* Records on the list whose address space is pgt (ps: LazyFree per process). */
uint64_t lazyfree_count(const struct pagetable *pgt);

/* Check the invariant above for every record (panics naming the first bad
 * one); returns the number of records. */
uint64_t lazyfree_check(void);

#endif
