/* mm/lazyfree.h -- the lazy-free list: anonymous pages given up with
 * MADV_FREE that reclaim may take back while nobody writes them.
 *
 * MADV_FREE on a page mapped once (refcount 1, in a private PT page) makes
 * its entry LAZYFREE and clean (hardware D bit cleared atomically, one TLB
 * flush for the whole range) and sets the entry's bit in the record of its
 * PT page. One record per PT page of an address space (2 MiB), not per
 * page: it is allocated once, the first time MADV_FREE finds lazy-free
 * pages there, and reused by every later MADV_FREE of those addresses, so
 * giving the same memory back again and again allocates nothing.
 *
 *   lazyfree_list --> [pgt A, va 0x400000, bits 0..255] --> [pgt B, ...] --> ...
 *                      oldest MADV_FREE first (a record moves to the young
 *                      end whenever MADV_FREE marks in its PT page again)
 *
 * Records are also chained in a small hash table keyed by (pgt, va), so
 * that MADV_FREE and the entry writers find the record of a PT page in one
 * look. Invariant (lazyfree_check):
 *   bit i of record R is set  <=>  the entry of R->pgt at R->va + i pages
 *   is counted lazy-free: present, anonymous, PTE_LAZYFREE;
 *   R->npages = the bits set; lazyfree_stats.pages = the sum over records.
 * So every code path that clears or replaces a leaf entry calls
 * lazyfree_forget() first (unmap, munmap, MADV_DONTNEED, exit teardown, COW
 * replacement, fork copy). A PTE_LAZYFREE bit without a record bit (left
 * in a PT page that became shared, where reclaim cannot write) means
 * nothing. Reclaim takes the oldest record and looks at every page it
 * names (mm/reclaim.c): "oldest first" is per PT page.
 */
#ifndef MM_LAZYFREE_H
#define MM_LAZYFREE_H

#include "lib/list.h"
#include "lib/spinlock.h"
#include "arch/x86_64/pte.h"

struct page;
struct pagetable;

#define LAZYFREE_WORDS (PT_ENTRIES / 64)

struct lazyfree_rec {
	struct list link;             /* on lazyfree_list, oldest first */
	struct lazyfree_rec *hnext;   /* the next record in its hash bucket */
	struct pagetable *pgt;        /* the address space ... */
	vaddr_t va;                   /* ... and the 2 MiB (one PT page) it covers */
	uint32_t npages;              /* bits set in lazy[] */
	uint32_t call;                /* the lazyfree_range call that marked it last */
	uint64_t lazy[LAZYFREE_WORDS]; /* bit i: the page at va + i pages */
};

struct lazyfree_stats {
	uint64_t pages;        /* pages counted lazy-free now (meminfo LazyFree) */
	uint64_t marked;       /* pages marked by MADV_FREE (pglazyfree) */
	uint64_t discarded;    /* clean pages reclaim freed (pglazyfreed) */
	uint64_t reused;       /* written again before reclaim: kept */
	uint64_t forgotten;    /* unmapped, replaced or forked while lazy */
	uint64_t records;      /* records on the list now (one per PT page) */
};
extern struct lazyfree_stats lazyfree_stats;
extern struct list lazyfree_list;

/* Guards the list, the hash table, every record and lazyfree_stats (rank
 * LOCK_RANK_LAZYFREE: taken inside a PT page's lock, mm/pt/ptpage.h; reclaim,
 * holding it, takes PT locks only with spin_trylock). A record's bit is
 * set only while its entry maps the page, so a CPU holding this lock may
 * walk to the entry of a set bit: its tables cannot be freed meanwhile
 * (clearing the entry clears the bit first, under this lock). */
extern struct spinlock lazyfree_lock;

/* MADV_FREE of the present pages of [start, end) in pgt (the caller checked
 * that the range is private anonymous memory). Pages mapped more than once
 * are left alone; so is a PT page's part when no record can be allocated
 * for it (the advice is only a hint). One TLB batch for the range. */
void lazyfree_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* The entry e of pgt at va is about to be cleared or replaced: if it is
 * counted lazy-free, clear its bit (the page is no longer lazy-free).
 * Cheap when e is not LAZYFREE. Does nothing when this CPU holds
 * lazyfree_lock: that is reclaim, which clears the bit itself first. */
void lazyfree_forget_entry(struct pagetable *pgt, vaddr_t va, pte_t e);
static inline void lazyfree_forget(struct pagetable *pgt, vaddr_t va, pte_t e)
{
	if (pte_lazyfree(e))
		lazyfree_forget_entry(pgt, va, e);
}

/* pgt stops using PT page pt (mapping the 2 MiB at va) without clearing
 * its entries -- it drops its share of a PT page other address spaces still
 * use (munmap, exit): drop pgt's record of it. */
void lazyfree_forget_table(struct pagetable *pgt, struct page *pt, vaddr_t va);

/* Drop pgt's records for addresses in [start, end): fork shares the PD page
 * mapping them with another address space (no record lives below a shared
 * PD page). O(records on the list); nothing when the list is empty. */
void lazyfree_forget_range(struct pagetable *pgt, vaddr_t start, vaddr_t end);

/* Unlink record r (its pages stop counting), free it (lazyfree_lock held). */
void lazyfree_drop(struct lazyfree_rec *r);

/* Clear bit i of record r if set (lazyfree_lock held); true if it was. */
bool lazyfree_rec_clear(struct lazyfree_rec *r, unsigned i);

/* Is the page of pgt at va counted lazy-free (its record's bit set)? */
bool lazyfree_counted(const struct pagetable *pgt, vaddr_t va);

/* Pages counted lazy-free in pgt (ps: LazyFree per process). */
uint64_t lazyfree_count(const struct pagetable *pgt);

/* Check the invariant above for every record (panics naming the first bad
 * one); returns the number of pages counted. */
uint64_t lazyfree_check(void);

#endif
